import StrataTestSupport
import Testing

@testable import StrataCore

/// Looking a property up by name (``Entity/attributeIndex(named:)``) answers exactly as a
/// `[String: Int]` of first positions would, for every key, including the keys its fast table
/// leaves to a dictionary.
@Suite struct EntityLookupTests {
    /// Property names and keys from a seeded generator: short and long, ASCII and not.
    func randomNames(_ generator: inout SeededGenerator, count: Int) -> [String] {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
        return (0..<count).map { _ in
            let length = Int.random(in: 1...40, using: &generator)
            return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        }
    }

    @Test func everyNameIsFoundAtItsFirstPositionAndNothingElseIsFound() {
        var generator = SeededGenerator(seed: 7)
        for round in 0..<200 {
            var names = randomNames(&generator, count: Int.random(in: 0...70, using: &generator))
            if round % 5 == 0, let first = names.first { names.append(first) } // a name given twice
            let entity = Entity("E", attributes: names.map { Attribute($0, .string) })
            var expected: [String: Int] = [:]
            for (i, name) in names.enumerated() where expected[name] == nil { expected[name] = i }
            for name in names {
                #expect(entity.attributeIndex(named: name) == expected[name], "round \(round): \(name)")
            }
            for key in randomNames(&generator, count: 50) {
                #expect(entity.attributeIndex(named: key) == expected[key], "round \(round): \(key)")
            }
            #expect(entity.attributeIndex(named: "") == nil)
        }
    }

    @Test func keysEqualUnderCanonicalEquivalenceAreFoundAsADictionaryFindsThem() {
        // Swift compares strings by canonical equivalence: the Kelvin sign equals "K", and a
        // decomposed "é" equals the precomposed one, though their bytes differ.
        let ascii = Entity("E", attributes: [Attribute("K", .string), Attribute("name", .string)])
        #expect(ascii.attributeIndex(named: "\u{212A}") == 0)
        #expect(ascii.attributeIndex(named: "name") == 1)
        let accented = Entity("E", attributes: [Attribute("caf\u{E9}", .string), Attribute("K", .string)])
        #expect(accented.attributeIndex(named: "cafe\u{301}") == 0)
        #expect(accented.attributeIndex(named: "caf\u{E9}") == 0)
        #expect(accented.attributeIndex(named: "\u{212A}") == 1)
        #expect(accented.attributeIndex(named: "cafe") == nil)
    }

    @Test func keysBuiltSeparatelyFromTheNamesAreFoundToo() {
        // Long names live in heap storage: a key spelled the same but built apart has other
        // storage, so it cannot be matched by its representation and is found by its characters.
        let long = "averyveryverylongattributename"
        let short = "age"
        let entity = Entity("E", attributes: [Attribute(short, .integer64), Attribute(long, .string)])
        let rebuiltLong = String(long.reversed().reversed())
        let rebuiltShort = String(["a", "g", "e"])
        #expect(entity.attributeIndex(named: long) == 1)
        #expect(entity.attributeIndex(named: rebuiltLong) == 1)
        #expect(entity.attributeIndex(named: short) == 0)
        #expect(entity.attributeIndex(named: rebuiltShort) == 0)
        #expect(entity.attributeIndex(named: String(long.dropLast())) == nil)
        #expect(entity.attributeIndex(named: long + "x") == nil)
    }

    @Test func relationshipsAreLookedUpTheSameWay() {
        let entity = Entity(
            "E", attributes: [Attribute("name", .string)],
            relationships: [
                Relationship("boss", to: "E", inverse: "reports"),
                Relationship("reports", to: "E", inverse: "boss", toMany: true),
            ])
        #expect(entity.relationshipIndex(named: "boss") == 0)
        #expect(entity.relationshipIndex(named: "reports") == 1)
        #expect(entity.relationshipIndex(named: "name") == nil)
        #expect(entity.attributeIndex(named: "boss") == nil)
        #expect(entity.relationship(named: "reports")?.isToMany == true)
    }

    @Test func copiesOfAnEntityAreEqualAndEqualDeclarationsAreEqual() {
        let a = Entity("E", attributes: [Attribute("name", .string)])
        let copy = a
        let same = Entity("E", attributes: [Attribute("name", .string)])
        let other = Entity("E", attributes: [Attribute("name", .integer64)])
        #expect(a == copy)
        #expect(a == same)
        #expect(a.hashValue == same.hashValue)
        #expect(a != other)
    }
}
