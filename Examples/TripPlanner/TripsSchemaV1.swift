import StrataData

/// The first release of the trip planner's models: trips, their bucket lists and where one
/// stays. The models live in the enum, as SwiftData programs keep each version of a schema.
enum TripsSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self, LivingAccommodation.self] }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        var startDate: Date
        var endDate: Date
        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = []
        @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
        var livingAccommodation: LivingAccommodation?

        init(name: String, destination: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    @Model final class BucketListItem {
        var title: String
        var details: String
        var hasReservation: Bool
        var trip: Trip?

        init(title: String, details: String, hasReservation: Bool = false) {
            self.title = title
            self.details = details
            self.hasReservation = hasReservation
        }
    }

    @Model final class LivingAccommodation {
        var address: String
        var placeName: String
        var trip: Trip?

        init(address: String, placeName: String) {
            self.address = address
            self.placeName = placeName
        }
    }
}
