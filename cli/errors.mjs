/** A usage or data error: the CLI prints its message and exits with 2. */
export class UsageError extends Error {
  constructor(message) {
    super(message)
    this.name = 'UsageError'
  }
}
