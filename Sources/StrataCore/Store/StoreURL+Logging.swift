extension StoreURL {
    /// The URL as logs show it: the password written `***` (as in ``description``), and the
    /// value of each query option whose name suggests a secret (it contains `pass`, `pwd`,
    /// `secret`, `token`, `key`, `auth` or `credential`, in any case) written `***` too.
    package var loggedDescription: String {
        var shown = self
        for name in query.keys where Self.namesASecret(name) { shown.query[name] = "***" }
        return shown.description
    }

    private static func namesASecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["pass", "pwd", "secret", "token", "key", "auth", "credential"].contains { lowered.contains($0) }
    }
}
