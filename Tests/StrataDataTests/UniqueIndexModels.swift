import Foundation
import StrataData

// Models that declare `#Unique` and `#Index`, as SwiftData programs write them.

/// A flight: unique by carrier, number and day together, and by its booking code alone; indexed
/// by departure airport and by carrier and day.
@Model final class Flight {
    #Unique<Flight>([\.carrier, \.number, \.day], [\.code])
    #Index<Flight>([\.departure], [\.carrier, \.day])

    var carrier: String
    var number: Int
    var day: Date
    var code: String?
    var departure: String
    var arrival: String = ""
    @Transient var isSelected = false

    init(carrier: String, number: Int, day: Date, code: String? = nil, departure: String) {
        self.carrier = carrier
        self.number = number
        self.day = day
        self.code = code
        self.departure = departure
    }
}

/// A model whose indexes are declared by kind (`.binary`, `.rtree`).
@Model final class Landmark {
    #Index<Landmark>(.binary([\.name]), .rtree([\.latitude, \.longitude]))

    var name: String
    var latitude: Double
    var longitude: Double

    init(name: String, latitude: Double, longitude: Double) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A seat unique by row and flight: `flight` is a relationship, which a constraint of Strata's
/// cannot cover (a macro cannot tell a model type from its name; the container reports it).
@Model final class Seat {
    #Unique<Seat>([\.row, \.cabin])

    var row: Int
    var cabin: Cabin?

    init(row: Int) { self.row = row }
}

/// The other side of ``Seat/cabin``.
@Model final class Cabin {
    var name: String
    var seats: [Seat] = []
    init(name: String) { self.name = name }
}

/// Version 1 of a routes model: no index.
enum RoutesSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Route.self] }

    @Model final class Route {
        var origin: String
        var destination: String
        init(origin: String, destination: String) {
            self.origin = origin
            self.destination = destination
        }
    }
}

/// Version 2: an index on origin and destination, nothing else changed.
enum RoutesSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Route.self] }

    @Model final class Route {
        #Index<Route>([\.origin, \.destination])

        var origin: String
        var destination: String
        init(origin: String, destination: String) {
            self.origin = origin
            self.destination = destination
        }
    }
}

/// Version 1 to 2, inferred.
enum RoutesIndexPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [RoutesSchemaV1.self, RoutesSchemaV2.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: RoutesSchemaV1.self, toVersion: RoutesSchemaV2.self)]
    }
}
