/** Typed rows for tests, made from records as the API gives them, as the cache reads them. */
export { rowOfKind as rowOf } from '../../../../src-common/records/record-kinds.ts'
