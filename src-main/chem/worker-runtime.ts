/**
 * The inside of a chemistry worker: loads RDKit, attaches the shared indexes it is given, and runs
 * one task at a time. Whatever a task throws goes back as an error value; a WebAssembly trap (an
 * RDKit abort, memory exhausted) leaves RDKit in an unknown state, so the worker answers and then
 * exits, and the pool starts a fresh one.
 */
import type { MessagePort } from 'node:worker_threads'
import { AppError, toErrorValue } from '../shared/app-error.ts'
import { AttachedIndex } from './attached-index.ts'
import { drawMolecule, substructureHighlight, type Highlight } from './depiction.ts'
import { computeNoveltyKeys } from './novelty-keys.ts'
import { RDKitToolkit, type Mol, type ParsedQuery } from './rdkit-toolkit.ts'
import { scanSimilarities } from './similarity-scan.ts'
import { structureProblemsOf } from './structure-check.ts'
import { computeStructure, morganFingerprintOf } from './structure-computation.ts'
import { computeDetails, unknownDetails } from './structure-details.ts'
import { matchStructures } from './structure-match.ts'
import type { SubstructureQuery } from './structure-query.ts'
import { scanSubstructures } from './substructure-scan.ts'
import { webAssembly } from './shared-memory-runtime.ts'
import type {
  ChemTask,
  ChemTaskKind,
  ChemTaskResult,
  ChemWorkerData,
  MainToWorker,
  WorkerToMain,
} from './worker-protocol.ts'
import type { TaskContext } from './task-context.ts'

type TaskHandlers = {
  [K in ChemTaskKind]: (task: ChemTask<K>, context: TaskContext<K>) => ChemTaskResult<K>
}

export async function runChemWorker(port: MessagePort, data: ChemWorkerData): Promise<void> {
  const rdkit = await RDKitToolkit.load()
  const indexes = new Map<string, AttachedIndex>()
  const send = (message: WorkerToMain): void => port.postMessage(message)

  const attached = (indexId: string): AttachedIndex => {
    const index = indexes.get(indexId)
    if (!index) throw new Error(`No structure index ${indexId} is attached to this worker.`)
    return index
  }

  const parseQueryOrThrow = (query: SubstructureQuery): ParsedQuery => {
    const parsed = rdkit.parseQuery(query.text, query.language)
    if (!parsed.ok) throw new AppError('invalid_argument', parsed.problem)
    return parsed.value
  }

  const parseMoleculeOrThrow = (text: string): Mol => {
    const parsed = rdkit.parseMolecule(text)
    if (!parsed.ok) throw new AppError('invalid_argument', parsed.problem)
    return parsed.value
  }

  const handlers: TaskHandlers = {
    describe: () => ({ rdkitVersion: rdkit.version }),

    computeStructures: (task, context) =>
      task.items.map((item) => {
        context.throwIfCancelled()
        return computeStructure(rdkit, item)
      }),

    computeDetails: (task, context) => {
      // Detached: the engine closed while the pass ran; nothing about the molecules is known.
      const index = indexes.get(task.indexId)
      if (!index) throw new AppError('cancelled', 'The structure index was closed.')
      return task.items.map((item) => {
        context.throwIfCancelled()
        try {
          return computeDetails(rdkit, item, index.buffers.pickle(item.slot))
        } catch (error) {
          // A trap leaves RDKit unusable: the worker must stop (see runTask).
          if (error instanceof webAssembly.RuntimeError) throw error
          return { ...unknownDetails(item), problem: toErrorValue(error).message }
        }
      })
    },

    noveltyKeys: (task, context) =>
      task.structures.map((text) => {
        context.throwIfCancelled()
        return computeNoveltyKeys(rdkit, text)
      }),

    matchStructures: (task, context) =>
      matchStructures(rdkit, task.structures, task.criterion, context),

    canonicalizeStructure: (task) => {
      const mol = parseMoleculeOrThrow(task.text)
      try {
        return { canonicalSmiles: mol.get_smiles() }
      } finally {
        mol.delete()
      }
    },

    writeMolblocks: (task, context) =>
      task.structures.map((text) => {
        context.throwIfCancelled()
        const parsed = rdkit.parseMolecule(text)
        if (!parsed.ok) return { problem: parsed.problem }
        try {
          return { molblock: parsed.value.get_molblock() }
        } finally {
          parsed.value.delete()
        }
      }),

    checkStructures: (task, context) => structureProblemsOf(rdkit, task.structures, context),

    depictMolecule: (task) => {
      const mol = rdkit.parseMoleculeFromPickle(attached(task.indexId).buffers.pickle(task.slot))
      if (!mol) throw new Error(`The pickle of index slot ${task.slot} is unreadable.`)
      try {
        let highlight: Highlight | null = null
        if (task.highlight) {
          const query = parseQueryOrThrow(task.highlight).mol
          try {
            highlight = substructureHighlight(mol, query, task.highlight.useChirality)
          } finally {
            query.delete()
          }
        }
        return { svg: drawMolecule(mol, task.size, highlight), highlighted: highlight !== null }
      } finally {
        mol.delete()
      }
    },

    depictQuery: (task) => {
      const parsed = rdkit.parseQuery(task.text, task.language)
      if (!parsed.ok) throw new AppError('invalid_argument', parsed.problem)
      try {
        return {
          svg: drawMolecule(parsed.value.mol, task.size, null),
          language: parsed.value.language,
        }
      } finally {
        parsed.value.mol.delete()
      }
    },

    substructureScan: (task, context) => {
      const query = parseQueryOrThrow(task.query)
      try {
        return scanSubstructures(attached(task.indexId), rdkit, query, task, context)
      } finally {
        query.mol.delete()
      }
    },

    similarityScan: (task, context) => {
      const query = parseMoleculeOrThrow(task.query)
      let fingerprint: Uint8Array
      try {
        fingerprint = morganFingerprintOf(query)
      } finally {
        query.delete()
      }
      return scanSimilarities(attached(task.indexId), fingerprint, task, context)
    },
  }

  const runTask = (taskId: number, task: ChemTask, cancelFlag: Int32Array): void => {
    const context: TaskContext<ChemTaskKind> = {
      progress: (progress) => send({ type: 'progress', taskId, progress }),
      throwIfCancelled: () => {
        if (Atomics.load(cancelFlag, 0) !== 0) {
          throw new AppError('cancelled', 'The operation was cancelled.')
        }
      },
    }
    const handler = handlers[task.kind] as (
      task: ChemTask,
      context: TaskContext<ChemTaskKind>,
    ) => unknown
    try {
      send({ type: 'result', taskId, ok: true, value: handler(task, context) })
    } catch (error) {
      send({ type: 'result', taskId, ok: false, error: toErrorValue(error) })
      if (error instanceof webAssembly.RuntimeError) process.exit(1)
    }
  }

  port.on('message', (message: MainToWorker) => {
    switch (message.type) {
      case 'task':
        runTask(message.taskId, message.task, message.cancelFlag)
        break
      case 'attachIndex':
        indexes.set(message.indexId, new AttachedIndex(message.handles, data.workerIndex))
        break
      case 'detachIndex':
        indexes.delete(message.indexId)
        break
      case 'close':
        port.close()
        break
    }
  })
  send({ type: 'ready' })
}
