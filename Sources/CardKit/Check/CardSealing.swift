/// Seals an accepted card for its recipient: what a caller receives instead of the clear card
/// (`PaymentCard.appendJSON`). `CardSeal.CardSealer` is the implementation (encryption for a
/// payment processor's public key); this protocol lets `CardPrompt` hand sealed cards over
/// without depending on a cryptography library, so a program that never encrypts does not
/// build one.
public protocol CardSealing: Sendable {
    /// Appends the sealed card as one JSON object, no line break. The card's clear digits go
    /// into nothing this returns or keeps; buffers that held them are wiped before it returns.
    func appendSealed(_ card: PaymentCard, to out: inout [UInt8]) throws
}
