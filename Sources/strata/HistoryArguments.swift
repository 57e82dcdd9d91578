import Foundation
import Strata

/// Reads the history positions `strata history` takes: tokens and dates.
enum HistoryArguments {
    /// `text` as a token of the store `storeIdentifier`: `<store>:<n>`, or a bare `<n>` for this store.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` naming `option` and the text when it is neither.
    static func token(_ text: String, storeIdentifier: String, option: String) throws -> HistoryToken {
        if let sequence = Int64(text), sequence >= 0 {
            return HistoryToken(storeIdentifier: storeIdentifier, sequence: sequence)
        }
        do { return try HistoryToken(parsing: text) } catch var error as StrataError {
            error.message = "\(option) \(error.message), nor a bare transaction number of this store (42)"
            error.location["option"] = option
            throw error
        }
    }

    /// What `--prune-before TEXT` deletes: a token's transaction and every one before it, or the
    /// transactions committed before a date.
    ///
    /// A date is ISO 8601: `2026-11-27` (midnight UTC) or a time with its zone
    /// (`2026-11-27T12:00:00Z`, `2026-11-27T13:00:00.5+01:00`). A token is `<store>:<n>` or a bare
    /// `<n>`.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for text that is neither, a time without a
    ///   zone, eight digits that could be a transaction number or a date (`20261127`), and a
    ///   token of another store.
    static func pruning(_ text: String, storeIdentifier: String) throws -> HistoryPruning {
        let option = "--prune-before"
        func refuse(_ message: String) -> StrataError {
            StrataError(
                .invalidRequest, "\(option) '\(text.prefix(300))' \(message)",
                location: ["option": option, "value": text])
        }
        if text.count == 8, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), date(compact: text) != nil {
            throw refuse(
                "could be transaction \(text) or the date \(text.prefix(4))-\(text.dropFirst(4).prefix(2))-\(text.suffix(2)); write the token as \(storeIdentifier):\(text) or the date with dashes"
            )
        }
        if text.range(of: #"^\d{4}-\d{2}-\d{2}"#, options: .regularExpression) != nil {
            return .before(try date(text, refuse: refuse))
        }
        let token = try token(text, storeIdentifier: storeIdentifier, option: option)
        guard token.storeIdentifier == storeIdentifier else {
            throw refuse("is a token of the store '\(token.storeIdentifier)', not of this store ('\(storeIdentifier)')")
        }
        return .through(token)
    }

    /// An ISO 8601 date: a day (midnight UTC) or a time with its zone.
    private static func date(_ text: String, refuse: (String) -> StrataError) throws -> Date {
        if text.count == 10 {
            guard let day = date(compact: text.replacingOccurrences(of: "-", with: "")) else {
                throw refuse("is not a date (YYYY-MM-DD)")
            }
            return day
        }
        guard text.range(of: #"(Z|[+-]\d{2}:?\d{2})$"#, options: .regularExpression) != nil else {
            throw refuse(
                "has no time zone, so it names a different moment in each zone; add Z (UTC) or an offset such as +01:00"
            )
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        throw refuse("is not an ISO 8601 date (2026-11-27, 2026-11-27T12:00:00Z)")
    }

    /// `YYYYMMDD` at midnight UTC, when it is a real day.
    private static func date(compact text: String) -> Date? {
        guard text.count == 8, let year = Int(text.prefix(4)), let month = Int(text.dropFirst(4).prefix(2)),
            let day = Int(text.suffix(2))
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }
}
