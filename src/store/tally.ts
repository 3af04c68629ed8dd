/**
 * A number kept per project and in all: the records the log dropped, the bytes it holds. With a
 * projects file, a project's token reads its own project's, an admin's the sandbox's
 * (docs/team.md#projects-each-teams-mail-behind-its-own-tokens), so that what one project reads
 * does not move with another's sends. A project whose number is back to 0 is forgotten: the map
 * holds the projects with something to count, not every project ever seen.
 *
 * @example
 * const bytes = new ProjectTally()
 * bytes.add('acme', 1200); bytes.add('billing', 800)
 * bytes.of('acme') // 1200
 * bytes.of()       // 2000
 */
export class ProjectTally {
  private readonly byProject = new Map<string, number>()
  private sum = 0

  /** Adds `n` (negative to take away) to the project's number and to the total. */
  add(project: string, n: number): void {
    if (n === 0) return
    this.sum += n
    const next = (this.byProject.get(project) ?? 0) + n
    if (next === 0) this.byProject.delete(project)
    else this.byProject.set(project, next)
  }

  /** The project's number, or with no project the total. */
  of(project?: string): number {
    return project === undefined ? this.sum : (this.byProject.get(project) ?? 0)
  }

  /** Every project's number, as a plain object (what an event carries). */
  toJSON(): Record<string, number> {
    return Object.fromEntries(this.byProject)
  }

  /** Back to nothing. */
  reset(): void {
    this.byProject.clear()
    this.sum = 0
  }
}
