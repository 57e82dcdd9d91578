import Testing

@testable import StrataXML

@Suite struct XMLTextTests {
    @Test func plainASCIIIsCopiedWholeAndAnythingElseRefusedAtEveryPosition() {
        for length in 0...40 {
            var plain: [UInt8] = []
            for i in 0..<length {
                let byte = UInt8(0x20 + (i * 7) % 0x5F)
                plain.append(byte == 0x26 ? 0x27 : byte)
            }
            plain.withUnsafeBufferPointer { text in
                var copy = [UInt8](repeating: 0xFF, count: length + 1)
                let copied = copy.withUnsafeMutableBufferPointer { XMLText.copyIfPlainASCII(text, to: $0.baseAddress!) }
                #expect(copied && XMLText.isPlainASCII(text), "length \(length)")
                #expect(
                    Array(copy[0..<length]) == plain && copy[length] == 0xFF,
                    "length \(length): copies exactly the text")
            }
            for position in 0..<length {
                for bad: UInt8 in [0x26, 0x80, 0xC3, 0xFF] {
                    var text = plain
                    text[position] = bad
                    text.withUnsafeBufferPointer { text in
                        var copy = [UInt8](repeating: 0, count: length)
                        let copied = copy.withUnsafeMutableBufferPointer {
                            XMLText.copyIfPlainASCII(text, to: $0.baseAddress!)
                        }
                        #expect(!copied && !XMLText.isPlainASCII(text), "length \(length), byte \(bad) at \(position)")
                    }
                }
            }
        }
    }
}
