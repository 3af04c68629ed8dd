/**
 * The template layer: file-based Liquid templates with front matter, fixtures and hot reload.
 * Other layers use only what is exported here.
 */
export type * from './types.js'
export { createTemplateCatalog, openTemplateCatalog, type OpenedCatalog } from './catalog.js'
export { snapshotClock, SNAPSHOT_NOW } from './clock.js'
export type { FolderWatcher } from './watcher.js'
export { watchFolders } from './watch-later.js'
export { isEditorArtifact } from './editor-files.js'
export { isInside } from './template-files.js'
export { isValidSlug, SLUG_HINT, SLUG_PATTERN } from './slug.js'
export { missingVariables, unusedVariables } from './analyze.js'
export { createTextParts, type TextParts } from './text-parts.js'
export {
  renderMessage,
  renderMessageWith,
  lookupFailure,
  exampleVariables,
  describeFailure,
  toPlainText,
  warmPlainText,
  type RenderOutcome,
  type RenderedMessage,
  type RenderWarning,
  type TemplateFailure,
} from './render.js'
export {
  writeFixtureCase,
  isFixtureCaseName,
  FixtureWriteError,
  FIXTURE_MAX_BYTES,
  FIXTURE_CASE_PATTERN,
} from './fixture-writer.js'
