// `setupFiles: ['oxeval/vitest/setup']`: registers oxeval's eval matchers on Vitest's expect.
import { registerEvalMatchers } from './index.mjs'

registerEvalMatchers()
