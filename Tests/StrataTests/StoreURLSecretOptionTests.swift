import StrataCore
import Testing

/// A store URL's text hides the values of options that hold a secret (libpq's `sslpassword`,
/// tokens, keys), as it hides the password, and gives them back only unredacted.
@Suite struct StoreURLSecretOptionTests {
    @Test func theDescriptionWritesSecretOptionsAsStars() throws {
        let url = try StoreURL.parse(
            "postgres://app:hunter2@db.example.com/app?sslmode=require&sslpassword=s3cret&apiKey=k3y&authToken=t0k")
        for shown in [url.description, url.debugDescription, "\(url)"] {
            for secret in ["hunter2", "s3cret", "k3y", "t0k"] { #expect(!shown.contains(secret), "\(shown)") }
            #expect(shown.contains("sslmode=require") && shown.contains("sslpassword=***"), "\(shown)")
        }
        #expect(try StoreURL.parse(url.unredactedDescription) == url)
    }

    @Test func aRelativeLocationHidesThemToo() throws {
        let url = try StoreURL.parse("lmdb:data?token=abc123&durability=full")
        #expect(url.description == "lmdb:data?durability=full&token=***")
        #expect(try StoreURL.parse(url.unredactedDescription) == url)
    }
}
