import StrataData

// A trip-planning model, as a SwiftData program declares it.

@Model final class Trip {
    @Attribute(.unique) var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var status: TripStatus = TripStatus.planned
    var budget: Budget?
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = []
    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?
    @Transient var isSelected = false

    init(name: String, destination: String, startDate: Date = .now, endDate: Date = .now) {
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
    var isInPlan: Bool
    var trip: Trip?

    init(title: String, details: String = "", hasReservation: Bool = false, isInPlan: Bool = false) {
        self.title = title
        self.details = details
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

/// Every attribute type a model stores.
@Model final class Sampler {
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var decimal: Decimal
    var bool: Bool
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var optionalString: String?
    var optionalInt: Int?
    var status: TripStatus?
    var tags: [String]

    init() {
        int = -1
        int8 = -8
        int16 = -16
        int32 = -32
        int64 = -64
        uint8 = 8
        uint16 = 16
        uint32 = 32
        uint64 = 64
        double = 1.5
        float = 2.5
        decimal = Decimal(string: "3.25")!
        bool = true
        date = Date(timeIntervalSince1970: 86_400)
        data = Data([1, 2, 3])
        uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        url = URL(string: "https://example.com/a")!
        optionalString = nil
        optionalInt = 7
        status = .booked
        tags = ["a", "b"]
    }
}
