extension KeyDecoder {
    // MARK: - Interpreting complete sequences

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// Numeric parameters separated by `;` (an empty one is nil; sub-parameters after `:` are
    /// ignored); nil when other bytes (private markers, intermediates) are present.
    private static func parameters(_ bytes: ArraySlice<UInt8>) -> [Int?]? {
        var result: [Int?] = []
        var current: Int?
        var inSubParameter = false
        for byte in bytes {
            switch byte {
            case 0x30...0x39:
                if !inSubParameter { current = min((current ?? 0) * 10 + Int(byte - 0x30), 99_999) }
            case 0x3B:  // ;
                result.append(current)
                current = nil
                inSubParameter = false
            case 0x3A:  // :
                inSubParameter = true
            default:
                return nil
            }
        }
        result.append(current)
        return result
    }

    /// xterm's modifier parameter: 1 + bitmask (shift 1, alt 2, ctrl 4, meta 8); absent is none.
    private static func modifiers(_ parameter: Int?) -> TerminalKey.Modifiers? {
        guard let parameter else { return [] }
        guard (1...16).contains(parameter) else { return nil }
        return TerminalKey.Modifiers(rawValue: UInt8(parameter - 1))
    }

    /// The modifiers of `CSI 1;mod X` / `CSI X` (first parameter absent or 1).
    private static func cursorModifiers(_ p: [Int?]) -> TerminalKey.Modifiers? {
        guard p.count <= 2, p[0] == nil || p[0] == 1 else { return nil }
        return modifiers(p.count == 2 ? p[1] : nil)
    }

    /// The key of `CSI n ~` (also rxvt's `CSI n $`, `^`, `@`).
    private static func tildeKey(_ n: Int) -> TerminalKey.Base? {
        switch n {
        case 1, 7: return .home
        case 2: return .insert
        case 3: return .delete
        case 4, 8: return .end
        case 5: return .pageUp
        case 6: return .pageDown
        case 11...15: return .function(n - 10)
        case 17...21: return .function(n - 11)
        case 23...26: return .function(n - 12)
        case 28, 29: return .function(n - 13)
        case 31...34: return .function(n - 14)
        default: return nil
        }
    }

    /// The cursor-style final bytes shared by CSI and SS3.
    private static func cursorKey(_ final: UInt8) -> TerminalKey.Base? {
        switch final {
        case 0x41: return .up  // A
        case 0x42: return .down  // B
        case 0x43: return .right  // C
        case 0x44: return .left  // D
        case 0x48: return .home  // H
        case 0x46: return .end  // F
        case 0x45: return .begin  // E
        case 0x50...0x53: return .function(Int(final) - 0x4F)  // P Q R S
        default: return nil
        }
    }

    /// A CSI u / modifyOtherKeys code point with its modifier parameter.
    private static func codePointKey(_ code: Int?, _ modifierParameter: Int?) -> TerminalKey? {
        guard let code, var mods = modifierParameter else { return nil }
        mods = (mods - 1) & ~(64 | 128)  // kitty's Caps Lock and Num Lock bits
        guard let modifiers = modifiers(mods + 1) else { return nil }
        switch code {
        case 27: return TerminalKey(.escape, modifiers: modifiers)
        case 0..<0x20, 0x7F: return TerminalKey(.control(UInt8(code)), modifiers: modifiers)
        case 0xE000...0xF8FF: return nil  // kitty's functional keys live in the private use area
        default:
            guard let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
            return TerminalKey(.character(Character(scalar)), modifiers: modifiers)
        }
    }

    mutating func completeCSI(into keys: inout [TerminalKey]) {
        let final = pending[pending.count - 1]
        let body = pending[2..<(pending.count - 1)]
        var decoded: TerminalKey?
        var pasteStart = false
        if let p = Self.parameters(body) {
            switch final {
            case 0x41...0x48, 0x50...0x53, 0x5A:  // A–H, P–S, Z
                let base: TerminalKey.Base? = final == 0x5A ? .backTab : final == 0x47 ? .begin : Self.cursorKey(final)
                if let base, let mods = Self.cursorModifiers(p) { decoded = TerminalKey(base, modifiers: mods) }
            case 0x49, 0x4F:  // I, O
                if p == [nil] { decoded = TerminalKey(final == 0x49 ? .focusIn : .focusOut) }
            case 0x61...0x64:  // rxvt Shift-arrows: a b c d
                let arrows: [TerminalKey.Base] = [.up, .down, .right, .left]
                if p == [nil] { decoded = TerminalKey(arrows[Int(final - 0x61)], modifiers: .shift) }
            case 0x7E:  // ~
                if p.count == 3 && p[0] == 27 {
                    decoded = Self.codePointKey(p[2], p[1])  // xterm modifyOtherKeys
                } else if p == [200] {
                    pasteStart = true
                } else if p.count <= 2, let n = p[0], let base = Self.tildeKey(n),
                    let mods = Self.modifiers(p.count == 2 ? p[1] : nil)
                {
                    decoded = TerminalKey(base, modifiers: mods)
                }
            case 0x24, 0x5E, 0x40:  // rxvt: $ Shift, ^ Ctrl, @ Ctrl-Shift
                let mods: TerminalKey.Modifiers =
                    final == 0x24 ? .shift : final == 0x5E ? .control : [.control, .shift]
                if p.count == 1, let n = p[0], let base = Self.tildeKey(n) {
                    decoded = TerminalKey(base, modifiers: mods)
                }
            case 0x75:  // u
                if (1...3).contains(p.count) { decoded = Self.codePointKey(p[0], p.count >= 2 ? p[1] ?? 1 : 1) }
            default:
                break
            }
        }
        if pasteStart {
            if escPrefix { keys.append(TerminalKey(.escape)) }
            reset()
            state = .paste(matched: 0)
        } else if let decoded {
            emit(decoded.base, decoded.modifiers, into: &keys)
            reset()
        } else {
            keys.append(TerminalKey(.unknown(prefixedPending)))
            reset()
        }
    }

    mutating func completeSS3(into keys: inout [TerminalKey]) {
        let final = pending[pending.count - 1]
        let body = pending[2..<(pending.count - 1)]
        var decoded: TerminalKey?
        // xterm's modifier digit: ESC O 5 A (or ESC O 1;5 A); none without parameters.
        var mods: TerminalKey.Modifiers? = []
        if !body.isEmpty {
            if let p = Self.parameters(body), p.allSatisfy({ $0 != nil }) {
                mods = p.count == 1 ? Self.modifiers(p[0]) : Self.cursorModifiers(p)
            } else {
                mods = nil
            }
        }
        if let mods {
            let keypad: [UInt8: Character] = [
                0x6A: "*", 0x6B: "+", 0x6C: ",", 0x6D: "-", 0x6E: ".", 0x6F: "/", 0x58: "=",
            ]
            switch final {
            case 0x70...0x79:  // p…y: keypad 0…9
                decoded = TerminalKey(.keypad(Character(Unicode.Scalar(final - 0x70 + 0x30))), modifiers: mods)
            case 0x4D:  // M
                decoded = TerminalKey(.keypadEnter, modifiers: mods)
            case 0x61...0x64 where body.isEmpty:  // rxvt Ctrl-arrows: a b c d
                let arrows: [TerminalKey.Base] = [.up, .down, .right, .left]
                decoded = TerminalKey(arrows[Int(final - 0x61)], modifiers: .control)
            default:
                if let c = keypad[final] {
                    decoded = TerminalKey(.keypad(c), modifiers: mods)
                } else if let base = Self.cursorKey(final) {
                    decoded = TerminalKey(base, modifiers: mods)
                }
            }
        }
        if let decoded {
            emit(decoded.base, decoded.modifiers, into: &keys)
        } else {
            keys.append(TerminalKey(.unknown(prefixedPending)))
        }
        reset()
    }
}
