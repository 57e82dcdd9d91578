import StrataCore
import Testing

@Suite struct StoreURLAuthorityTests {
    @Test func aFullURLParsesIntoItsParts() throws {
        let url = try StoreURL.parse("postgres://app:s3cret@db.example.com:5432/app?sslmode=require&connect_timeout=5")
        #expect(url.scheme == "postgres" && url.user == "app" && url.password == "s3cret")
        #expect(url.host == "db.example.com" && url.port == 5432 && url.location == "/app")
        #expect(url.query == ["sslmode": "require", "connect_timeout": "5"])
        #expect(url.hasAuthority && !url.isPlainLocation)
    }

    @Test func partsArePercentDecoded() throws {
        let url = try StoreURL.parse("postgres://us%40er:p%3Ass%2Fw@my%2Dhost/da%20ta?na%20me=v%26l")
        #expect(url.user == "us@er" && url.password == "p:ss/w" && url.host == "my-host")
        #expect(url.location == "/da ta" && url.query == ["na me": "v&l"])
    }

    @Test func anIPv6HostIsWrittenInBrackets() throws {
        let url = try StoreURL.parse("postgres://[::1]:6432/app")
        #expect(url.host == "::1" && url.port == 6432)
        #expect(url.description == "postgres://[::1]:6432/app")
        #expect(try StoreURL.parse("postgres://[2001:DB8::7]/x").host == "2001:db8::7")
    }

    @Test func aUserWithoutAPasswordAndAHostWithoutAPortParse() throws {
        let url = try StoreURL.parse("postgres://app@db")
        #expect(url.user == "app" && url.password == nil && url.host == "db" && url.port == nil && url.location == "")
    }

    @Test func theEmptyAuthorityIsThePlainForm() throws {
        #expect(
            try StoreURL.parse("sqlite:///var/a%20b.sqlite") == StoreURL(scheme: "sqlite", location: "/var/a b.sqlite"))
        #expect(
            try StoreURL.parse("sqlite:/var/a%20b.sqlite").location == "/var/a%20b.sqlite", "scheme:PATH is as written")
    }

    @Test func thePasswordIsNeverPrinted() throws {
        let text = "postgres://app:s3cret@db:5432/app?sslmode=require"
        let url = try StoreURL.parse(text)
        #expect(url.description == "postgres://app:***@db:5432/app?sslmode=require")
        #expect(url.debugDescription == url.description)
        #expect(!"\(url)".contains("s3cret") && !String(reflecting: url).contains("s3cret"))
        #expect(url.unredactedDescription == text)
        #expect(try StoreURL.parse(url.unredactedDescription) == url)
    }

    @Test func aPasswordInAnInvalidURLIsNotInTheError() {
        let error = #expect(throws: StrataError.self) { _ = try StoreURL.parse("postgres://app:s3cret@db:99999/app") }
        #expect(error?.code == .invalidStoreURL && error?.location["part"] == "port")
        #expect(
            error.map { !"\($0)".contains("s3cret") && !$0.location.values.contains { $0.contains("s3cret") } } == true)
        #expect(error?.message.contains("app:***@db") == true)
    }

    @Test func descriptionRoundTripsWithoutAPassword() throws {
        for text in ["postgres://db/app", "postgres://app@[fe80::1]:1/a/b?x=1&y=", "sqlite:relative/x", "memory:"] {
            let url = try StoreURL.parse(text)
            #expect(try StoreURL.parse(url.description) == url, "\(text)")
        }
        let odd = StoreURL(
            scheme: "postgres", user: "a b", password: "p@ss", host: "h", location: "/d ir", query: ["k&": "v="])
        #expect(try StoreURL.parse(odd.unredactedDescription) == odd)
    }

    @Test(arguments: [
        ("postgres://:5432/app", "host"), ("postgres://app@/x", "host"), ("postgres://app:pw@", "host"),
        ("postgres://db:/x", "port"), ("postgres://db:0/x", "port"), ("postgres://db:65536/x", "port"),
        ("postgres://db:12ab/x", "port"), ("postgres://db:-1/x", "port"), ("postgres://db:000000005432/x", "port"),
        ("postgres://db/%zz", "path"), ("postgres://db/%4", "path"), ("postgres://db/a%00b", "path"),
        ("postgres://db/%ff", "path"), ("postgres://us%zzer@db/x", "user"), ("postgres://u:%g1@db/x", "password"),
        ("postgres://d%zzb/x", "host"), ("postgres://d%20b/x", "host"), ("postgres://d b/x", "host"),
        ("postgres://[::1/x", "host"), ("postgres://[xyz]/x", "host"), ("postgres://[::1]x/x", "host"),
        ("postgres://a:b:c/x", "port"), ("postgres://db/x?=v", "query"), ("postgres://db/x?a=1&a=2", "query"),
        ("postgres://db/x?a=%zz", "query"), ("postgres://db/x#frag", "fragment"),
    ])
    func hostileURLsAreTypedErrorsNamingThePart(_ text: String, _ part: String) {
        let error = #expect(throws: StrataError.self, "\(text)") { _ = try StoreURL.parse(text) }
        #expect(error?.code == .invalidStoreURL, "\(text)")
        #expect(error?.location["part"] == part, "\(text): \(error?.message ?? "")")
    }

    @Test func nulBytesAndOverlongURLsAreTypedErrors() {
        for text in [
            "sqlite:/a\u{0}b", "postgres://db\u{0}/x",
            "sqlite:" + String(repeating: "a", count: StoreURL.maximumLength),
        ] {
            let error = #expect(throws: StrataError.self) { _ = try StoreURL.parse(text) }
            #expect(error?.code == .invalidStoreURL)
            #expect((error?.message.utf8.count ?? .max) < StoreURL.maximumLength + 400)
        }
        #expect(StoreURL("sqlite:/" + String(repeating: "a", count: 4096)) != nil)
    }

    @Test func plainLocationRefusesWhatAFileBackendCannotUse() throws {
        #expect(try StoreURL.parse("sqlite:///x").plainLocation(for: "the test store") == "/x")
        #expect(try StoreURL.parse("sqlite://localhost/x").plainLocation(for: "the test store") == "/x")
        for (text, part) in [
            ("sqlite://host/x", "host"), ("sqlite://me@localhost/x", "user"), ("sqlite://localhost:99/x", "port"),
            ("sqlite:///x?mode=ro", "query"),
        ] {
            let error = #expect(throws: StrataError.self) {
                _ = try StoreURL.parse(text).plainLocation(for: "the test store")
            }
            #expect(error?.code == .invalidStoreURL && error?.location["part"] == part, "\(text)")
            #expect(error?.message.contains("the test store") == true)
        }
        let secret = StoreURL(scheme: "sqlite", user: "me", password: "s3cret", host: "localhost", location: "/x")
        let error = #expect(throws: StrataError.self) { _ = try secret.plainLocation(for: "the test store") }
        #expect(error.map { !"\($0)".contains("s3cret") } == true)
    }
}
