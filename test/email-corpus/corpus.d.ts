/** Types of corpus.js (plain JavaScript, so that bench/ loads it as is). */
export interface CorpusSource {
  collection: string
  /** The upstream repository, `owner/name`. */
  repo: string
  /** The fetched corpus (sources.json): the commit the emails were taken at. */
  commit?: string
  /** The npm corpus (npm-sources.json): the package and its exact version. */
  package?: string
  version?: string
  /** The npm corpus: how build-npm.mjs makes each email from the package. */
  render?:
    | 'html'
    | 'mailgen'
    | 'freemarker'
    | 'covalent-mjml'
    | 'ecomplus'
    | 'function'
    | 'sails-ejs'
    | 'react-email'
    | 'vendure'
  licence: string
  licenceFiles: string[]
}
export interface CorpusEmail {
  collection: string
  name: string
  /** The file's path in its repository, or in its package. */
  path: string
  /** mailgen: the theme the example is run with. */
  theme?: string
  /** @covalent/email-templates: the template's name. */
  template?: string
  /** @ecomplus/transactional-mails: the package's method that renders it. */
  method?: string
  /** `function`: the function the file at `path` exports, and its sample arguments. */
  function?: string
  args?: unknown[]
}
export interface Sources {
  collections: CorpusSource[]
  emails: CorpusEmail[]
}
export const FETCHED: boolean
export const CORPUS_DIR: string
export const SOURCES: Sources
export const hasCorpus: boolean
export function corpusFile(e: CorpusEmail): string
export function corpusHtml(e: CorpusEmail): string
export const CORPUS_TEXT: string
