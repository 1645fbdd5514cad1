/// Whether `AutoCancel` met a scenario's target, and the figures that decided it.
struct TargetVerdict {
  let pass: Bool
  let detail: String
}
