import StrataCore

extension StrataError.Code {
    /// A container configuration (a store-description file, a `STRATA_STORE` variable, a set of
    /// descriptions) is malformed or inconsistent; the error's location names the file or
    /// variable, the key and the value.
    public static let invalidConfiguration = StrataError.Code(rawValue: "invalidConfiguration")
}
