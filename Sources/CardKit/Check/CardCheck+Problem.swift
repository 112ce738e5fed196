extension CardCheck {
    /// Why a record is not valid. The raw values are the names printed in JSON output.
    public enum Problem: String, CaseIterable, Sendable {
        /// More than three comma-separated fields, no number at all, or a line over 1 MiB.
        case recordFormat = "record_format"
        /// The number holds something other than digits, spaces and dashes.
        case numberFormat = "number_format"
        /// No network matches the number.
        case unknownNetwork = "unknown_network"
        /// The network does not allow this many digits (or the number is too short to tell).
        case length
        /// The Luhn check digit is wrong (for networks that use it).
        case luhn
        /// The expiry is not `MM/YY` or `MM/YYYY` with a month 01–12.
        case expiryFormat = "expiry_format"
        /// The card expired before this month.
        case expired
        /// The expiry is more than the allowed years ahead (20).
        case expiryTooFar = "expiry_too_far"
        /// The security code is not digits.
        case cvvFormat = "cvv_format"
        /// The security code has the wrong number of digits for the network.
        case cvvLength = "cvv_length"
        /// The number belongs to a network that is not among the accepted ones (`--networks`).
        case networkNotAccepted = "network_not_accepted"
        /// The record has no expiry where one is needed: a card sealed for its recipient
        /// (`check --encrypt-to`) carries its expiry (`requiringExpiry`).
        case expiryMissing = "expiry_missing"

        /// The problem's bit in `Result`, in declaration (and output) order.
        var bit: UInt16 {
            switch self {
            case .recordFormat: return 1 << 0
            case .numberFormat: return 1 << 1
            case .unknownNetwork: return 1 << 2
            case .length: return 1 << 3
            case .luhn: return 1 << 4
            case .expiryFormat: return 1 << 5
            case .expired: return 1 << 6
            case .expiryTooFar: return 1 << 7
            case .cvvFormat: return 1 << 8
            case .cvvLength: return 1 << 9
            case .networkNotAccepted: return 1 << 10
            case .expiryMissing: return 1 << 11
            }
        }
    }
}
