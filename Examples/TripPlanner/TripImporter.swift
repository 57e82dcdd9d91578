import StrataData

/// A trip as an import file describes it: plain values, safe to hand to the importer.
struct TripDraft: Sendable {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var status: TripStatus = .planned
    var bucketList: [String] = []
    var stay: (placeName: String, address: String)?
}

/// Adds trips in the background, in a context of its own: the app's main context stays free
/// while it works, and sees the trips at its next fetch. Identifiers, never models, go in and
/// out.
@ModelActor actor TripImporter {
    /// Inserts a trip per draft, with its bucket list and where it stays, saves, and returns
    /// the trips' identifiers.
    func importTrips(_ drafts: [TripDraft]) throws -> [PersistentIdentifier] {
        let trips = drafts.map { draft in
            let trip = Trip(
                name: draft.name, destination: draft.destination, startDate: draft.startDate, endDate: draft.endDate)
            trip.status = draft.status
            trip.bucketList = draft.bucketList.map { BucketListItem(title: $0, notes: "") }
            if let stay = draft.stay {
                trip.livingAccommodation = LivingAccommodation(address: stay.address, placeName: stay.placeName)
            }
            return trip
        }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    /// Marks the trips `ids` booked and saves; returns how many it found.
    func markBooked(_ ids: [PersistentIdentifier]) throws -> Int {
        let trips = ids.compactMap { self[$0, as: Trip.self] }
        for trip in trips { trip.status = .booked }
        try modelContext.save()
        return trips.count
    }
}
