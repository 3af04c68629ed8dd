/** Types of corpus.js (plain JavaScript, so that bench/ loads it as is). */
export interface CorpusSource {
  collection: string
  repo: string
  commit: string
  licence: string
  licenceFiles: string[]
}
export interface CorpusEmail {
  collection: string
  name: string
  /** The file's path in its repository. */
  path: string
}
export interface Sources {
  collections: CorpusSource[]
  emails: CorpusEmail[]
}
export const CORPUS_DIR: string
export const SOURCES: Sources
export const hasCorpus: boolean
export function corpusFile(e: CorpusEmail): string
export function corpusHtml(e: CorpusEmail): string
export const CORPUS_TEXT: string
