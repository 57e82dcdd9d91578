extension StoreURL {
    /// ``location``, for a backend whose stores are files or names in this process and which
    /// has no use for an authority or a query.
    ///
    /// Accepts `scheme:LOCATION`, `scheme:///PATH` and `scheme://localhost/PATH` (the plain file
    /// URL forms); refuses a user, password, port, a host other than `localhost`, and a query
    /// unless the backend takes its query as options.
    ///
    /// - Parameters:
    ///   - backendName: the backend, as messages name it (`"the SQLite store"`).
    ///   - acceptingQueryOptions: the backend reads the query as its options
    ///     (``StoreOptions/addingQueryOptions(of:)``), so a query is no part of the location.
    /// - Throws: ``StrataError/Code/invalidStoreURL`` naming the backend and the part
    ///   (`location["part"]`: `host`, `user`, `password`, `port` or `query`) it cannot use.
    public func plainLocation(for backendName: String, acceptingQueryOptions: Bool = false) throws -> String {
        func refuse(_ part: String, _ what: String) -> StrataError {
            StrataError(
                .invalidStoreURL,
                "'\(self)': \(backendName) does not use \(what); write \(scheme):/path or \(scheme):///path",
                location: ["url": description, "part": part, "scheme": scheme])
        }
        if let host, host != "localhost" { throw refuse("host", "a host ('\(host)')") }
        if let user { throw refuse("user", "a user ('\(user)')") }
        if password != nil { throw refuse("password", "a password") }
        if let port { throw refuse("port", "a port (\(port))") }
        if !query.isEmpty && !acceptingQueryOptions {
            throw refuse("query", "query options (\(query.keys.sorted().joined(separator: ", ")))")
        }
        return location
    }
}
