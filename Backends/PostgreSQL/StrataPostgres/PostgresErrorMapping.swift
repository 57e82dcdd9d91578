import CStrataPostgres
import Foundation
import StrataCore

/// What a failed statement or connection attempt becomes: a ``StrataError`` whose code says what
/// the caller can do, with the SQLSTATE, the server's message and the constraint, table or column
/// it names in the error's fields. Never the password.
enum PostgresErrorMapping {
    /// SQLSTATEs a transaction is retried for: a serialization failure and a deadlock.
    static let retryableStates: Set<String> = ["40001", "40P01"]

    /// The code of SQLSTATE `state`.
    static func code(forState state: String) -> StrataError.Code {
        switch state {
        case "23505": return .uniqueConstraint
        case "23502": return .missingValue
        case "23503", "23514", "23P01": return .invalidRequest
        case "40001", "40P01", "55P03", "53300", "55006": return .storeBusy
        case "57014": return .cancelled
        case "57P01", "57P02", "57P03", "57P04", "57P05": return .serverUnavailable
        case "3D000": return .storeNotFound
        case "42P01", "42703", "42704", "3F000": return .storeCorrupt
        case "25006": return .readOnly
        case "42501": return .readOnly
        case "53100", "53200", "58030": return .io
        default: break
        }
        switch state.prefix(2) {
        case "08": return .serverUnavailable
        case "28": return .authenticationFailed
        case "22": return .invalidRequest
        case "53": return .storeBusy
        case "58", "XX": return .io
        default: return .internalInconsistency
        }
    }

    /// The error of a failed statement: its result's SQLSTATE and fields, or the connection's
    /// message when there is no result (a lost connection).
    static func error(
        result: OpaquePointer?, connection: OpaquePointer, endpoint: String, action: String, sql: String? = nil
    ) -> StrataError {
        func field(_ code: Character) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        let connectionMessage = String(cString: PQerrorMessage(connection)).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let broken = PQstatus(connection) != CONNECTION_OK
        let state = field("C") ?? (broken ? "08006" : "XX000")
        let primary = field("M") ?? (connectionMessage.isEmpty ? "no answer from the server" : connectionMessage)
        var location = ["server": endpoint, "sqlstate": state]
        if let constraint = field("n") { location["constraint"] = constraint }
        if let table = field("t") { location["table"] = table }
        if let column = field("c") { location["column"] = column }
        if let sql { location["sql"] = String(sql.prefix(200)) }
        let code = broken ? .serverUnavailable : self.code(forState: state)
        var message = "\(action) on \(endpoint) failed: \(primary)"
        if code == .serverUnavailable { message += "; the server is not reachable (it may be restarting)" }
        if retryableStates.contains(state) { message += "; other transactions kept colliding with this one" }
        return StrataError(
            code, message, location: location, underlying: field("D") ?? (broken ? connectionMessage : nil))
    }

    /// The error of a connection attempt that failed: which of wrong credentials, a database that
    /// does not exist, or a server that can't be reached, read from libpq's message (it has no
    /// SQLSTATE before a session starts).
    static func connectionError(message: String, endpoint: String, timeoutSeconds: Int) -> StrataError {
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = text.lowercased()
        let location = ["server": endpoint]
        if lower.contains("password authentication failed") || lower.contains("no password supplied")
            || lower.contains("authentication failed") || lower.contains("no pg_hba.conf entry")
            || lower.contains("role") && lower.contains("does not exist")
        {
            return StrataError(
                .authenticationFailed,
                "the PostgreSQL server at \(endpoint) refused the credentials (user or password); check the URL, PGPASSWORD or PGPASSFILE",
                location: location, underlying: text)
        }
        if lower.contains("database") && lower.contains("does not exist") {
            return StrataError(
                .storeNotFound, "the PostgreSQL server at \(endpoint) has no such database; create it first (createdb)",
                location: location, underlying: text)
        }
        if lower.contains("timeout expired") {
            return StrataError(
                .serverUnavailable,
                "no PostgreSQL server answered at \(endpoint) within \(timeoutSeconds) s (connect_timeout)",
                location: location, underlying: text)
        }
        return StrataError(
            .serverUnavailable, "could not connect to a PostgreSQL server at \(endpoint)", location: location,
            underlying: text)
    }
}
