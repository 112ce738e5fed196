#if canImport(Glibc)
    import Glibc
#endif

/// The prompts libedit draws for `InteractiveEditor`: the left one (label and hint, with its
/// escape sequences) and the right one (the badge, where libedit draws it: `TERM=dumb`), as
/// Swift text and as the C strings libedit keeps pointers to until they are replaced.
final class PromptTexts {
    /// The left prompt as drawn (with its escape sequences), for `LineCells`.
    private(set) var left = ""
    /// C copies of the prompts, alive until replaced (libedit reads them when it draws).
    private(set) var leftText: UnsafeMutablePointer<CChar>?  // libedit's prompt function returns it
    private(set) var rightText: UnsafeMutablePointer<CChar>?  // libedit's right-prompt function returns it
    /// The logo the right prompt was last built for.
    private(set) var rightLogo = ""

    deinit {
        free(leftText)
        free(rightText)
    }

    /// The left prompt is `prompt` from now on.
    func setLeft(_ prompt: String) {
        free(leftText)
        left = prompt
        leftText = strdup(Self.invisibleEscapes(prompt))
    }

    /// The right prompt is `prompt`, built for `logo`, from now on.
    func setRight(_ prompt: String, logo: String) {
        free(rightText)
        rightText = strdup(Self.invisibleEscapes(prompt))
        rightLogo = logo
    }

    /// Marks the start and end of escape sequences in prompts, so libedit does not count them.
    static let invisible: CChar = 1

    /// Wraps each escape sequence in the invisible-marker character libedit was given.
    private static func invisibleEscapes(_ text: String) -> String {
        var result = ""
        var inEscape = false
        for scalar in text.unicodeScalars {
            if scalar == "\u{1B}" {
                result.unicodeScalars.append("\u{1}")
                inEscape = true
            }
            result.unicodeScalars.append(scalar)
            if inEscape && scalar == "m" {
                result.unicodeScalars.append("\u{1}")
                inEscape = false
            }
        }
        return result
    }
}
