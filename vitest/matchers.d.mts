// The eval matchers on Vitest's `expect`, for the type checker. Loaded by `oxeval/vitest` and by
// `oxeval/vitest/setup` (tsconfig `"types": ["oxeval/vitest/setup"]`, or
// `/// <reference types="oxeval/vitest/setup" />` in a .d.ts of the app).
//
// Why a global augmentation and not `declare module 'vitest'`: a module augmentation names the
// module `vitest` as resolved from THIS file, so in an app that installed a checkout (a symlink to
// a folder with its own node_modules/vitest) it lands on the checkout's Vitest and the app's
// `expect` never sees it. Vitest's `Assertion<T>` is built from the global `Chai.Assertion` (every
// function-valued key is kept as is) and its `expect` extends `Chai.ExpectStatic`, so merging
// into those two global interfaces reaches whichever Vitest the app compiles against.
import type { EvalMatchers, EvalAsymmetricMatchers } from './index.mjs'

declare global {
  namespace Chai {
    interface Assertion extends EvalMatchers<void> {}
    interface ExpectStatic extends EvalAsymmetricMatchers {}
  }
}
