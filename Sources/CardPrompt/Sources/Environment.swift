#if canImport(Glibc)
    import Glibc
#endif

/// The process environment as cardline reads it: a variable counts when it is set and not
/// empty (`NO_COLOR=` or `CARDLINE_NETWORKS=` is as if unset). The one home of that rule, for
/// the prompt, the library and the executable (`package`: not part of the public API).
package enum Environment {
    /// The value of `name` when it is set and not empty; nil otherwise.
    package static func value(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
