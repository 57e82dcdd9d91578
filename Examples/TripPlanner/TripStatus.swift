import StrataData

/// Where a trip stands: stored as its raw value, so fetches filter and sort on it.
enum TripStatus: String, Codable, CaseIterable, Sendable {
    case planned, booked, done
}
