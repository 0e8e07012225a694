/** A duration in the largest whole unit: `2 h`, `5 min`, otherwise seconds (`1.5 s`). */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}
