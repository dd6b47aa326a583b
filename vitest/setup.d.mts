// `setupFiles: ['oxeval/vitest/setup']` registers the matchers at run time; for the type checker,
// add `"types": ["oxeval/vitest/setup"]` to tsconfig's compilerOptions (or
// `/// <reference types="oxeval/vitest/setup" />` in one .d.ts of the app).
/// <reference path="./matchers.d.mts" />
export {}
