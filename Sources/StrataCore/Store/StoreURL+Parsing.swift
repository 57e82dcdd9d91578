extension StoreURL {
    /// The longest store URL accepted, in UTF-8 bytes.
    public static let maximumLength = 16_384

    /// Parses `scheme:location`, `scheme:location?name=value&...` or
    /// `scheme://user:password@host:port/path?name=value&...`.
    ///
    /// In the `scheme:location` form the location is taken as written up to the first `?`; what
    /// follows is the query (backend options, percent-decoded). A file name that contains `?`
    /// is written in the `scheme:///path` form, its `?` as `%3F`.
    ///
    /// - Throws: ``StrataError/Code/invalidStoreURL`` naming the text (its password written
    ///   `***`) and what is wrong: no or a bad scheme, a NUL byte, a URL longer than
    ///   ``maximumLength``, an empty host, a bad port, a bad percent escape, a bad IPv6 address,
    ///   a malformed or repeated query option, a fragment.
    public static func parse(_ text: String) throws -> StoreURL {
        let shown = redacted(text)
        func fail(_ why: String, part: String? = nil) -> StrataError {
            var location = ["url": shown]
            if let part { location["part"] = part }
            return StrataError(
                .invalidStoreURL,
                "'\(shown)' is not a store URL: \(why); write SCHEME:LOCATION, for example "
                    + "sqlite:/var/data/app.sqlite, or SCHEME://USER:PASSWORD@HOST:PORT/PATH?NAME=VALUE",
                location: location)
        }
        guard text.utf8.count <= maximumLength else {
            throw fail("it is \(text.utf8.count) bytes long, more than the \(maximumLength) allowed")
        }
        guard !text.utf8.contains(0) else { throw fail("it contains a NUL byte") }
        guard let colon = text.firstIndex(of: ":") else { throw fail("there is no scheme") }
        let scheme = String(text[..<colon])
        guard isValidScheme(scheme) else { throw fail("'\(scheme)' is not a valid scheme", part: "scheme") }
        let rest = text[text.index(after: colon)...]
        do {
            guard rest.hasPrefix("//") else {
                // `scheme:LOCATION?NAME=VALUE`: the location as written, the query as in the
                // `scheme://` form.
                guard let questionMark = rest.firstIndex(of: "?") else {
                    return StoreURL(scheme: scheme, location: String(rest))
                }
                return StoreURL(
                    scheme: scheme, host: nil, location: String(rest[..<questionMark]),
                    query: try parseQuery(rest[rest.index(after: questionMark)...]))
            }
            return try parseHierarchical(rest.dropFirst(2), scheme: scheme)
        } catch {
            throw fail(error.reason, part: error.part)
        }
    }

    /// What is wrong with a `scheme://` URL, and in which part.
    private struct PartFailure: Error {
        var reason: String
        var part: String
    }

    /// Parses what follows `scheme://`.
    private static func parseHierarchical(_ text: Substring, scheme: String) throws(PartFailure) -> StoreURL {
        func decode(_ piece: Substring, _ part: String) throws(PartFailure) -> String {
            do { return try StoreURLPercent.decode(piece) } catch {
                throw PartFailure(reason: "the \(part) is malformed: \(error.reason)", part: part)
            }
        }
        if text.contains("#") { throw PartFailure(reason: "a fragment (#...) is not supported", part: "fragment") }
        let authorityEnd = text.firstIndex { $0 == "/" || $0 == "?" } ?? text.endIndex
        let authority = text[..<authorityEnd]
        let pathAndQuery = text[authorityEnd...]
        let questionMark = pathAndQuery.firstIndex(of: "?")
        let path = try decode(pathAndQuery[..<(questionMark ?? pathAndQuery.endIndex)], "path")
        let query =
            try questionMark.map { (questionMark) throws(PartFailure) in
                try parseQuery(pathAndQuery[pathAndQuery.index(after: questionMark)...])
            } ?? [:]
        guard !authority.isEmpty else {
            return StoreURL(scheme: scheme, host: nil, location: path, query: query)
        }
        var user: String?
        var password: String?
        var hostAndPort = authority
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostAndPort = authority[authority.index(after: at)...]
            if let separator = userInfo.firstIndex(of: ":") {
                user = try decode(userInfo[..<separator], "user")
                password = try decode(userInfo[userInfo.index(after: separator)...], "password")
            } else {
                user = try decode(userInfo, "user")
            }
        }
        let (host, port) = try parseHostAndPort(hostAndPort)
        return StoreURL(
            scheme: scheme, user: user, password: password, host: host, port: port, location: path, query: query)
    }

    /// Parses the query after `?`: `NAME=VALUE` pairs separated by `&`, percent-decoded; each name
    /// at most once.
    private static func parseQuery(_ text: Substring) throws(PartFailure) -> [String: String] {
        func decode(_ piece: Substring) throws(PartFailure) -> String {
            do { return try StoreURLPercent.decode(piece) } catch {
                throw PartFailure(reason: "the query is malformed: \(error.reason)", part: "query")
            }
        }
        var query: [String: String] = [:]
        for item in text.split(separator: "&") {
            let equals = item.firstIndex(of: "=")
            let name = try decode(item[..<(equals ?? item.endIndex)])
            let value =
                try equals.map { (equals) throws(PartFailure) in try decode(item[item.index(after: equals)...]) } ?? ""
            guard !name.isEmpty else { throw PartFailure(reason: "a query option has no name", part: "query") }
            guard query.updateValue(value, forKey: name) == nil else {
                throw PartFailure(reason: "the query gives the option '\(name)' twice", part: "query")
            }
        }
        return query
    }

    /// Parses `host`, `host:port`, `[IPv6]` or `[IPv6]:port`.
    private static func parseHostAndPort(_ text: Substring) throws(PartFailure) -> (String, Int?) {
        var host: String
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw PartFailure(reason: "the IPv6 address has no closing ']'", part: "host")
            }
            let address = text[text.index(after: text.startIndex)..<close]
            guard address.contains(":"), address.utf8.allSatisfy({ isHexDigit($0) || $0 == 0x3A || $0 == 0x2E }) else {
                throw PartFailure(reason: "'[\(address)]' is not an IPv6 address", part: "host")
            }
            host = String(address).lowercased()
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw PartFailure(reason: "only ':PORT' may follow the IPv6 address", part: "host")
                }
                portText = after.dropFirst()
            }
        } else {
            let colon = text.firstIndex(of: ":")
            let name = text[..<(colon ?? text.endIndex)]
            if let colon { portText = text[text.index(after: colon)...] }
            guard
                name.utf8.allSatisfy({
                    StoreURLPercent.isUnreserved($0) || StoreURLPercent.isSubDelimiter($0) || $0 == 0x25
                })
            else {
                throw PartFailure(
                    reason: "the host '\(name)' has a character a host name cannot have (write an IPv6 address in [ ])",
                    part: "host")
            }
            do { host = try StoreURLPercent.decode(name) } catch {
                throw PartFailure(reason: "the host is malformed: \(error.reason)", part: "host")
            }
            guard !host.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == " " }) else {
                throw PartFailure(reason: "the host contains a space or a control character", part: "host")
            }
        }
        guard !host.isEmpty else {
            throw PartFailure(reason: "the host is empty; write HOST after // and any USER@", part: "host")
        }
        guard let portText else { return (host, nil) }
        guard !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw PartFailure(reason: "the port '\(portText)' is not a number", part: "port")
        }
        guard portText.utf8.count <= 5, let port = Int(portText), (1...65_535).contains(port) else {
            throw PartFailure(reason: "the port \(portText) is not from 1 to 65535", part: "port")
        }
        return (host, port)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// `text` with the password of its authority, if any, written `***`, for error messages
    /// about text that did not parse.
    public static func redacted(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":"), text[text.index(after: colon)...].hasPrefix("//") else {
            return text
        }
        let authorityStart = text.index(colon, offsetBy: 3)
        let rest = text[authorityStart...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
            let separator = rest[..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<text.index(after: separator)]) + "***" + String(text[at...])
    }
}
