extension StoreURL {
    /// The URL as logs show it: ``description``, which writes the password and the value of each
    /// query option whose name suggests a secret (it contains `pass`, `pwd`, `secret`, `token`,
    /// `key`, `auth` or `credential`, in any case) as `***`.
    package var loggedDescription: String { description }
}
