// What other test suites reuse of the pack test: build and pack the published packages, and install the
// tarballs with npm into a project outside the workspace, as a user installs them.
export { buildPackages } from './build.js'
export type { CommandOptions, CommandResult } from './commands.js'
export { cleanEnvironment, run, runOrThrow } from './commands.js'
export type { ConsumerProject } from './consumer.js'
export { installConsumer, npmInstall, tarballDependencies } from './consumer.js'
export type { PackedWorkspace } from './packed-workspace.js'
export { packWorkspace, TEST_RUN_DIRECTORY_VARIABLE } from './packed-workspace.js'
export type { PackedPackage } from './tarball.js'
export { pack, readPackedPackage, readTarball } from './tarball.js'
export type { Manifest, WorkspacePackage } from './workspace.js'
export { publishedPackages, WORKSPACE_ROOT } from './workspace.js'
