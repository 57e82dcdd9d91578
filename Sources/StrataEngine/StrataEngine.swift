// StrataEngine: the coordinator, contexts, managed objects and the container. It imports
// StrataCore and StrataMigrations (the container migrates stores while loading) and no backend:
// stores come from a `StoreRegistry` the program fills, so a program links the C libraries of
// the backends it registers and no others. It re-exports the vocabulary its API speaks.
// Those short public names (`Value`, `Model`, `Sort`) are meant: an application's own type of
// the same name hides them in its module, and `StrataCore.Value` still names Strata's.
@_exported import StrataCore
