import StrataData

// Models whose deletes leave values in the store's history, and the same models without the
// option, to compare their schemas.

typealias Notebook = NotebooksWithTombstones.Notebook
typealias Page = NotebooksWithTombstones.Page

/// A notebook's cover: stored as its raw value.
enum Cover: String, Codable {
    case spiral, stitched
}

/// Notebooks whose title, cover and shelf survive their deletion in the history.
enum NotebooksWithTombstones {
    @Model final class Notebook {
        @Attribute(.unique, .preserveValueOnDeletion) var title: String
        @Attribute(.preserveValueOnDeletion) var cover: Cover
        @Attribute(.preserveValueOnDeletion) var shelf: Int16?
        var summary: String
        @Relationship(deleteRule: .cascade, inverse: \Page.notebook) var pages: [Page] = []

        init(title: String, cover: Cover = .spiral, shelf: Int16? = nil, summary: String = "") {
            self.title = title
            self.cover = cover
            self.shelf = shelf
            self.summary = summary
        }
    }

    @Model final class Page {
        var number: Int
        var notebook: Notebook?
        init(number: Int) { self.number = number }
    }
}

/// The same notebooks, keeping nothing after deletion.
enum NotebooksWithoutTombstones {
    @Model final class Notebook {
        @Attribute(.unique) var title: String
        var cover: Cover
        var shelf: Int16?
        var summary: String
        @Relationship(deleteRule: .cascade, inverse: \Page.notebook) var pages: [Page] = []

        init(title: String) {
            self.title = title
            cover = .spiral
            summary = ""
        }
    }

    @Model final class Page {
        var number: Int
        var notebook: Notebook?
        init(number: Int) { self.number = number }
    }
}
