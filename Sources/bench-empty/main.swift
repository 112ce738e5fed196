// bench-empty: a Swift program that does nothing. `make bench` times it from spawn to exit as
// the baseline for cardline's start-up (the dynamic loader and the Swift runtime, no more).
