// StrataTransfer: JSON Lines import and export, store copy and validation, over any
// `PersistentStore`. It imports StrataCore (and Foundation) only: no engine, no backend, no
// migration engine, so a program that moves data between stores links nothing it does not open.
// It re-exports the vocabulary its API speaks.
// Those short public names (`Value`, `Model`, `Sort`) are meant: an application's own type of
// the same name hides them in its module, and `StrataCore.Value` still names Strata's.
@_exported import StrataCore
