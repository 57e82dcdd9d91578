// StrataXML: the `xml:` backend, one XML document per store, read whole at open and rewritten
// atomically at each save (docs/XMLStore.md). It imports StrataCore, its C module CStrataXML
// (libxml2) and Foundation: no engine, no migration engine. Linking it links libxml2 and no
// other backend's library.
