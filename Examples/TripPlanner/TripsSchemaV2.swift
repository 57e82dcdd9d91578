import StrataData

/// The second release: a trip has a status (an enum attribute, `.planned` for the trips the
/// first release saved) and a selection flag the store never sees; a bucket-list item's
/// `details` became `notes`, and an item may be part of the plan. Every change is one a
/// lightweight stage makes.
enum TripsSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self, LivingAccommodation.self] }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        var startDate: Date
        var endDate: Date
        var status: TripStatus = TripStatus.planned
        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = []
        @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
        var livingAccommodation: LivingAccommodation?
        @Transient var isSelected = false

        init(name: String, destination: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    @Model final class BucketListItem {
        var title: String
        @Attribute(originalName: "details") var notes: String
        var hasReservation: Bool
        var isInPlan: Bool = false
        var trip: Trip?

        init(title: String, notes: String, hasReservation: Bool = false, isInPlan: Bool = false) {
            self.title = title
            self.notes = notes
            self.hasReservation = hasReservation
            self.isInPlan = isInPlan
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

// The models of the current release, by the names the rest of the program uses.
typealias Trip = TripsSchemaV2.Trip
typealias BucketListItem = TripsSchemaV2.BucketListItem
typealias LivingAccommodation = TripsSchemaV2.LivingAccommodation
