import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

/// A file whose relationships disagree with their inverses: its objects (after the header), the
/// line the error must name, a fragment of the message, and the object it must name.
struct InverseCase: CustomTestStringConvertible, Sendable {
    var name: String
    var body: String
    var line: Int
    var fragment: String
    var entity: String
    var key: String
    var relationship: String
    /// Whether the file uses ``XMLInverseCheckTests/model`` (else the all-types model).
    var people = false
    var testDescription: String { name }
}

/// The loader used to accept files whose relationships disagreed with their inverses (a to-one
/// and the to-many that should list it back, a to-many listing one object twice), handing the
/// engine a graph whose two sides answered differently.
@Suite struct XMLInverseCheckTests {
    /// Every kind of pair: a self-inverse to-one and to-many, a one-to-one between two entities,
    /// and a many-to-many whose one side is ordered.
    static let model: Model = try! Model(
        versionIdentifier: "v1",
        entities: [
            Entity(
                "Club", attributes: [],
                relationships: [
                    Relationship("members", to: "Person", inverse: "clubs", toMany: true, ordered: true)
                ]),
            Entity(
                "Passport", attributes: [],
                relationships: [
                    Relationship("holder", to: "Person", inverse: "passport")
                ]),
            Entity(
                "Person", attributes: [],
                relationships: [
                    Relationship("spouse", to: "Person", inverse: "spouse"),
                    Relationship("friends", to: "Person", inverse: "friends", toMany: true),
                    Relationship("clubs", to: "Club", inverse: "members", toMany: true),
                    Relationship("passport", to: "Passport", inverse: "holder"),
                ]),
        ])

    static func header(_ model: Model) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<strata-store format=\"1\" modelHash=\"\(model.versionHash)\" modelVersion=\"v1\" storeIdentifier=\"S1\">\n"
    }

    static let cases: [InverseCase] = [
        InverseCase(
            name: "a to-many lists an object whose to-one names another holder",
            body:
                "<Department _pk=\"1\" _version=\"1\" name=\"a\" employees=\"1\"/>\n<Department _pk=\"2\" _version=\"1\" name=\"b\" employees=\"2\"/>\n<Employee _pk=\"1\" _version=\"1\" name=\"x\" department=\"1\"/>\n<Employee _pk=\"2\" _version=\"1\" name=\"y\" department=\"1\"/>\n",
            line: 4, fragment: "Department 2.employees lists Employee 2, but Employee 2.department is Department 1",
            entity: "Department", key: "2", relationship: "employees"),
        InverseCase(
            name: "a to-many lists an object whose to-one is empty",
            body:
                "<Department _pk=\"1\" _version=\"1\" name=\"a\" employees=\"1\"/>\n<Employee _pk=\"1\" _version=\"1\" name=\"x\"/>\n",
            line: 3, fragment: "Department 1.employees lists Employee 1, but Employee 1.department is empty",
            entity: "Department", key: "1", relationship: "employees"),
        InverseCase(
            name: "a to-one whose to-many does not list it back",
            body:
                "<Department _pk=\"1\" _version=\"1\" name=\"a\" employees=\"1\"/>\n<Employee _pk=\"1\" _version=\"1\" name=\"x\" department=\"1\"/>\n\n<Employee _pk=\"2\" _version=\"1\" name=\"y\" department=\"1\"/>\n",
            line: 6,
            fragment: "Employee 2.department is Department 1, but Department 1.employees does not list Employee 2",
            entity: "Employee", key: "2", relationship: "department"),
        InverseCase(
            name: "an unordered to-many lists one object twice",
            body:
                "<Department _pk=\"1\" _version=\"1\" name=\"a\" employees=\"1 1\"/>\n<Employee _pk=\"1\" _version=\"1\" name=\"x\" department=\"1\"/>\n",
            line: 3, fragment: "Department 1.employees lists Employee 1 twice", entity: "Department", key: "1",
            relationship: "employees"),
        InverseCase(
            name: "an ordered to-many lists one object twice",
            body:
                "<Employee _pk=\"1\" _version=\"1\" name=\"x\" rankedIn=\"1\"/>\n<Employee _pk=\"2\" _version=\"1\" name=\"y\" rankedIn=\"1\"/>\n<Department _pk=\"1\" _version=\"1\" name=\"a\"\n  ranking=\"2 1 2\"/>\n",
            line: 6, fragment: "Department 1.ranking lists Employee 2 twice", entity: "Department", key: "1",
            relationship: "ranking"),
        InverseCase(
            name: "a one-to-one whose other side names another object",
            body:
                "<Passport _pk=\"1\" _version=\"1\" holder=\"2\"/>\n<Person _pk=\"1\" _version=\"1\" passport=\"1\"/>\n<Person _pk=\"2\" _version=\"1\"/>\n",
            line: 3, fragment: "Passport 1.holder is Person 2, but Person 2.passport is empty", entity: "Passport",
            key: "1", relationship: "holder", people: true),
        InverseCase(
            name: "a self-inverse to-one that does not point back",
            body:
                "<Person _pk=\"1\" _version=\"1\" spouse=\"2\"/>\n<Person _pk=\"2\" _version=\"1\" spouse=\"3\"/>\n<Person _pk=\"3\" _version=\"1\" spouse=\"2\"/>\n",
            line: 3, fragment: "Person 1.spouse is Person 2, but Person 2.spouse is Person 3", entity: "Person",
            key: "1", relationship: "spouse", people: true),
        InverseCase(
            name: "a many-to-many listed on one side only",
            body:
                "<Club _pk=\"1\" _version=\"1\" members=\"1 2\"/>\n<Person _pk=\"1\" _version=\"1\" clubs=\"1\"/>\n<Person _pk=\"2\" _version=\"1\"/>\n",
            line: 3, fragment: "Club 1.members lists Person 2, but Person 2.clubs does not list Club 1", entity: "Club",
            key: "1", relationship: "members", people: true),
        InverseCase(
            name: "a many-to-many listed on the other side only",
            body:
                "<Club _pk=\"1\" _version=\"1\" members=\"1\"/>\n<Person _pk=\"1\" _version=\"1\" clubs=\"1\"/>\n<Person _pk=\"2\" _version=\"1\" clubs=\"1\"/>\n",
            line: 5, fragment: "Person 2.clubs lists Club 1, but Club 1.members does not list Person 2",
            entity: "Person", key: "2", relationship: "clubs", people: true),
        InverseCase(
            name: "an ordered many-to-many lists one object twice",
            body: "<Club _pk=\"1\" _version=\"1\" members=\"1 1\"/>\n<Person _pk=\"1\" _version=\"1\" clubs=\"1\"/>\n",
            line: 3, fragment: "Club 1.members lists Person 1 twice", entity: "Club", key: "1", relationship: "members",
            people: true),
        InverseCase(
            name: "a self-inverse to-many that is not symmetric",
            body: "<Person _pk=\"2\" _version=\"1\"/>\n<Person _pk=\"1\" _version=\"1\" friends=\"2\"/>\n",
            line: 4, fragment: "Person 1.friends lists Person 2, but Person 2.friends does not list Person 1",
            entity: "Person", key: "1", relationship: "friends", people: true),
    ]

    @Test(arguments: cases) func aRelationshipThatDisagreesWithItsInverseIsRefused(_ test: InverseCase) throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let model = test.people ? Self.model : TestModels.allTypes
        write(Self.header(model) + test.body + "</strata-store>\n", to: dir.file("store.xml"))
        let before = contents(dir.file("store.xml"))
        let error = strataError { _ = try XMLBackend().openStore(dir.url(), model: model, options: StoreOptions()) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains(test.fragment) == true, "\(error?.message ?? "no error")")
        #expect(error?.message.contains("line \(test.line):") == true, "\(error?.message ?? "no error")")
        #expect(error?.location["line"] == String(test.line))
        #expect(error?.location["entity"] == test.entity)
        #expect(error?.location["key"] == test.key)
        #expect(error?.location["relationship"] == test.relationship)
        #expect(contents(dir.file("store.xml")) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).withoutStoreLocks == ["store.xml"],
            "a failed open creates nothing")
    }

    /// Consistent files of every kind of pair load, in any object order, and give both sides.
    @Test func aConsistentGraphOfEveryKindOfPairLoads() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let body = """
            <Person _pk="3" _version="1" friends="1 2 3" clubs="1 2"/>
            <Person _pk="1" _version="1" spouse="2" friends="3" clubs="2" passport="2"/>
            <Person _pk="2" _version="1" spouse="1" friends="3" clubs="1 2"/>
            <Club _pk="2" _version="1" members="3 1 2"/>
            <Club _pk="1" _version="1" members="2 3"/>
            <Passport _pk="2" _version="1" holder="1"/>
            <Passport _pk="1" _version="1"/>

            """
        write(Self.header(Self.model) + body + "</strata-store>\n", to: dir.file("store.xml"))
        let store = try XMLBackend().openStore(dir.url(), model: Self.model, options: StoreOptions(isReadOnly: true))
        let people = try store.fetch(FetchRequest(entityName: "Person")).snapshots()
        let clubs = people[2].relationships[Self.model.entity(named: "Person")!.relationshipIndex(named: "clubs")!]
            .targets
        #expect(clubs.map(\.primaryKey) == [1, 2])
        let members = try store.fetch(FetchRequest(entityName: "Club")).snapshots()[1].relationships[0].targets
        #expect(members.map(\.primaryKey) == [3, 1, 2], "an ordered to-many keeps the file's order")
    }

    /// A save of an ordered to-many listing an object twice used to write it twice, in a file
    /// the loader now refuses: the save keeps each object once, at its first place, as it keeps
    /// an unordered to-many sorted and once.
    @Test func anOrderedToManySavedWithAnObjectTwiceKeepsItOnceAndLoadsAgain() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try XMLBackend().openStore(dir.url(), model: Self.model, options: StoreOptions())
        let clubEntity = Self.model.entity(named: "Club")!
        let personEntity = Self.model.entity(named: "Person")!
        let people = try store.obtainPermanentIDs(for: "Person", count: 2)
        let club = try store.obtainPermanentIDs(for: "Club", count: 1)[0]
        var clubSnapshot = Snapshot(objectID: club, entity: clubEntity)
        clubSnapshot.relationships = [.toMany([people[1], people[0], people[1]])]
        let members = people.map { id -> Snapshot in
            var snapshot = Snapshot(objectID: id, entity: personEntity)
            snapshot.relationships[personEntity.relationshipIndex(named: "clubs")!] = .toMany([club])
            return snapshot
        }
        try store.save(SaveRequest(inserts: [clubSnapshot] + members))
        #expect(
            try store.fetch(FetchRequest(entityName: "Club")).snapshots()[0].relationships[0]
                == .toMany([people[1], people[0]]))
        try store.close()
        let reopened = try XMLBackend().openStore(dir.url(), model: Self.model, options: StoreOptions(isReadOnly: true))
        #expect(
            try reopened.fetch(FetchRequest(entityName: "Club")).snapshots()[0].relationships[0]
                == .toMany([people[1], people[0]]))
    }

    /// A store the engine saved, with every kind of pair, loads again.
    @Test func aSavedGraphLoadsAgain() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try XMLBackend().openStore(dir.url(), model: Self.model, options: StoreOptions())
        let personEntity = Self.model.entity(named: "Person")!
        let clubEntity = Self.model.entity(named: "Club")!
        let passportEntity = Self.model.entity(named: "Passport")!
        let people = try store.obtainPermanentIDs(for: "Person", count: 3)
        let clubs = try store.obtainPermanentIDs(for: "Club", count: 1)
        let passports = try store.obtainPermanentIDs(for: "Passport", count: 1)
        func person(_ n: Int, spouse: ObjectID?, friends: [ObjectID], clubs: [ObjectID], passport: ObjectID?)
            -> Snapshot
        {
            var snapshot = Snapshot(objectID: people[n], entity: personEntity)
            snapshot.relationships = [.toOne(spouse), .toMany(friends), .toMany(clubs), .toOne(passport)]
            return snapshot
        }
        var club = Snapshot(objectID: clubs[0], entity: clubEntity)
        club.relationships = [.toMany([people[2], people[0]])]
        var passport = Snapshot(objectID: passports[0], entity: passportEntity)
        passport.relationships = [.toOne(people[1])]
        try store.save(
            SaveRequest(inserts: [
                person(0, spouse: people[1], friends: [people[2]], clubs: clubs, passport: nil),
                person(1, spouse: people[0], friends: [], clubs: [], passport: passports[0]),
                person(2, spouse: nil, friends: [people[0]], clubs: clubs, passport: nil),
                club, passport,
            ]))
        try store.close()
        let reopened = try XMLBackend().openStore(dir.url(), model: Self.model, options: StoreOptions(isReadOnly: true))
        #expect(try reopened.fetch(FetchRequest(entityName: "Person")).snapshots().count == 3)
    }
}
