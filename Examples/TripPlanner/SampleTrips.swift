import StrataData

/// The trips the planner works with, on fixed dates so that every run prints the same.
enum SampleTrips {
    /// Noon (UTC) of a day.
    static func day(_ year: Int, _ month: Int, _ day: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
    }

    /// What the first release saves: two trips, four bucket-list items, one place to stay.
    static func firstRelease() -> [TripsSchemaV1.Trip] {
        let lofoten = TripsSchemaV1.Trip(
            name: "Lofoten", destination: "Norway", startDate: day(2027, 6, 10), endDate: day(2027, 6, 20))
        lofoten.bucketList = [
            TripsSchemaV1.BucketListItem(title: "Reinebringen", details: "start before six"),
            TripsSchemaV1.BucketListItem(title: "Sea kayak", details: "book the guide", hasReservation: true),
        ]
        lofoten.livingAccommodation = TripsSchemaV1.LivingAccommodation(address: "Reine 12", placeName: "Rorbu")
        let kyoto = TripsSchemaV1.Trip(
            name: "Kyoto", destination: "Japan", startDate: day(2027, 11, 2), endDate: day(2027, 11, 9))
        kyoto.bucketList = [
            TripsSchemaV1.BucketListItem(title: "Fushimi Inari", details: "at dawn"),
            TripsSchemaV1.BucketListItem(title: "Tea ceremony", details: "", hasReservation: true),
        ]
        return [lofoten, kyoto]
    }

    /// What the importer adds in the background.
    static let imported: [TripDraft] = [
        TripDraft(
            name: "Reykjavík", destination: "Iceland", startDate: day(2027, 3, 1), endDate: day(2027, 3, 6),
            status: .booked, bucketList: ["Blue Lagoon", "Golden Circle", "Northern lights"],
            stay: (placeName: "Harbour flat", address: "Mýrargata 2")),
        TripDraft(
            name: "Lisbon", destination: "Portugal", startDate: day(2027, 4, 14), endDate: day(2027, 4, 18),
            bucketList: ["Tram 28", "Belém"]),
        TripDraft(
            name: "Porto", destination: "Portugal", startDate: day(2026, 9, 3), endDate: day(2026, 9, 7),
            status: .done, bucketList: ["Port cellars"]),
        TripDraft(name: "Patagonia", destination: "Chile", startDate: day(2028, 1, 5), endDate: day(2028, 1, 25)),
    ]
}
