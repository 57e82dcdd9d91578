import CStrataXML

/// libxml2's one-time global initialisation, done once per process before any other libxml2
/// call. libxml2 2.9 initialises its globals (character encodings, dictionaries, the parser)
/// lazily on first use, and two threads making their first calls at the same moment can crash
/// inside it: ThreadSanitizer's run of the XML conformance tests faulted in
/// `xmlTextWriterStartDocument`. `xmlInitParser` is the documented remedy; a Swift `static let`
/// makes it run exactly once, whichever thread comes first.
enum XMLLibrary {
    /// Evaluating this initialises libxml2 (once).
    static let initialized: Void = { xmlInitParser() }()
}
