#!/usr/bin/python3
"""Native RDKit reference for the chemistry benchmarks (bench/chem-*.bench.ts).

Runs with Debian's RDKit (/usr/bin/python3, python3-rdkit) on the same molecules and queries as
Vault Desk's engine, and prints one JSON document per line on stdout:

  build         time per molecule to parse and compute what the index keeps, on a sample
  substructure  rdSubstructLibrary (pickled molecules + pattern fingerprints, all cores) per query
  similarity    BulkTanimotoSimilarity on Morgan r2/2048 fingerprints, top k per query
  explain       the ids every given query matches, by brute force, to list disagreements

Molecule ids are 0-based row numbers of the CSV. Substructure queries are parsed as SMILES
molecules, as in RDKit's own screen-out benchmark (Regress/Scripts/fingerprint_screenout.py), and
matched with useChirality=True, as the engine does. The library holds pickles (CachedMolHolder),
like the engine, rather than trusted SMILES, because molecules re-read from trusted SMILES carry
no double-bond stereo and would never match an E/Z query under useChirality.
"""

import argparse
import csv
import gzip
import json
import resource
import sys
import time

import numpy
from rdkit import Chem, DataStructs, RDLogger, rdBase
from rdkit.Chem import AllChem, Descriptors, Lipinski, rdMolDescriptors, rdSubstructLibrary

RDLogger.DisableLog("rdApp.*")


def emit(document):
    sys.stdout.write(json.dumps(document) + "\n")
    sys.stdout.flush()


def progress(message):
    sys.stderr.write(f"[native] {message}\n")
    sys.stderr.flush()


def read_molecules(path, count):
    with gzip.open(path, "rt", newline="") as handle:
        rows = csv.DictReader(handle)
        smiles = []
        for row in rows:
            if len(smiles) >= count:
                break
            smiles.append(row["smiles"])
    return smiles


def parse_all(smiles):
    mols = [Chem.MolFromSmiles(text) for text in smiles]
    failed = sum(1 for mol in mols if mol is None)
    if failed:
        progress(f"{failed} molecules did not parse")
    return mols


def read_queries(path):
    with open(path) as handle:
        return [line.split()[0] for line in handle if line.strip()]


def max_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_build(args):
    smiles = read_molecules(args.molecules_file, args.sample)
    # Debian builds RDKit without InChI: then the InChIKey stage is left out (and said so).
    has_inchi = hasattr(Chem, "MolToInchiKey")
    stages = {"parse": 0.0, "canonical": 0.0, "pattern": 0.0, "morgan": 0.0, "pickle": 0.0,
              "properties": 0.0, **({"inchikey": 0.0} if has_inchi else {})}
    for text in smiles:
        t = time.perf_counter()
        mol = Chem.MolFromSmiles(text)
        stages["parse"] += time.perf_counter() - t
        if mol is None:
            continue
        t = time.perf_counter()
        Chem.MolToSmiles(mol)
        stages["canonical"] += time.perf_counter() - t
        if has_inchi:
            t = time.perf_counter()
            Chem.MolToInchiKey(mol)
            stages["inchikey"] += time.perf_counter() - t
        t = time.perf_counter()
        Chem.PatternFingerprint(mol, 2048)
        stages["pattern"] += time.perf_counter() - t
        t = time.perf_counter()
        AllChem.GetMorganFingerprintAsBitVect(mol, 2, nBits=2048)
        stages["morgan"] += time.perf_counter() - t
        t = time.perf_counter()
        mol.ToBinary()
        stages["pickle"] += time.perf_counter() - t
        t = time.perf_counter()
        Descriptors.MolWt(mol)
        Descriptors.ExactMolWt(mol)
        Descriptors.MolLogP(mol)
        rdMolDescriptors.CalcTPSA(mol)
        rdMolDescriptors.CalcNumHBA(mol)
        rdMolDescriptors.CalcNumHBD(mol)
        rdMolDescriptors.CalcNumRotatableBonds(mol)
        rdMolDescriptors.CalcNumAromaticRings(mol)
        Lipinski.NumHDonors(mol)
        Lipinski.NumHAcceptors(mol)
        mol.GetNumHeavyAtoms()
        stages["properties"] += time.perf_counter() - t
    per_molecule_us = {stage: seconds * 1e6 / len(smiles) for stage, seconds in stages.items()}
    emit({"mode": "build", "rdkit": rdBase.rdkitVersion, "sample": len(smiles),
          "inchiAvailable": has_inchi, "perMoleculeUs": per_molecule_us,
          "totalPerMoleculeUs": sum(per_molecule_us.values())})


def run_substructure(args):
    smiles = read_molecules(args.molecules_file, args.molecules)
    progress(f"building the substructure library of {len(smiles)} molecules "
             "(pickles + pattern fingerprints)")
    started = time.perf_counter()
    library = rdSubstructLibrary.SubstructLibrary(
        rdSubstructLibrary.CachedMolHolder(), rdSubstructLibrary.PatternHolder())
    # One molecule at a time, so that the memory measured is the library's, not a parsed list's.
    for text in smiles:
        mol = Chem.MolFromSmiles(text)
        library.AddMol(mol if mol is not None else Chem.Mol())
    emit({"mode": "library", "rdkit": rdBase.rdkitVersion, "molecules": len(smiles),
          "buildSeconds": time.perf_counter() - started, "maxRssMb": max_rss_mb()})
    molecule_count = len(smiles)
    del smiles
    for path in args.queries:
        queries = read_queries(path)
        progress(f"{len(queries)} queries from {path}")
        for index, text in enumerate(queries):
            query = Chem.MolFromSmiles(text)
            if query is None:
                emit({"mode": "substructure", "file": path, "index": index, "query": text,
                      "error": "not parsed"})
                continue
            started = time.perf_counter()
            hits = library.GetMatches(query, recursionPossible=True, useChirality=True,
                                      useQueryQueryMatches=False, numThreads=-1,
                                      maxResults=molecule_count + 1)
            elapsed = time.perf_counter() - started
            emit({"mode": "substructure", "file": path, "index": index, "query": text,
                  "hits": len(hits), "ms": elapsed * 1000})


def morgan_fingerprint(text):
    mol = Chem.MolFromSmiles(text)
    if mol is None:
        return DataStructs.ExplicitBitVect(2048)
    return AllChem.GetMorganFingerprintAsBitVect(mol, 2, nBits=2048)


def run_similarity(args):
    smiles = read_molecules(args.molecules_file, args.molecules)
    progress(f"computing Morgan fingerprints of {len(smiles)} molecules")
    fingerprints = [morgan_fingerprint(text) for text in smiles]
    emit({"mode": "fingerprints", "rdkit": rdBase.rdkitVersion, "molecules": len(smiles),
          "maxRssMb": max_rss_mb()})
    del smiles
    for path in args.queries:
        queries = read_queries(path)
        for index, text in enumerate(queries):
            query = Chem.MolFromSmiles(text)
            if query is None:
                continue
            query_fingerprint = AllChem.GetMorganFingerprintAsBitVect(query, 2, nBits=2048)
            started = time.perf_counter()
            scores = numpy.asarray(DataStructs.BulkTanimotoSimilarity(query_fingerprint, fingerprints))
            best = numpy.argpartition(-scores, args.top - 1)[: args.top]
            best = best[numpy.argsort(-scores[best], kind="stable")]
            elapsed = time.perf_counter() - started
            # Untimed: argpartition picks any of the molecules tied at the cut; for comparing
            # rankings, take all tied there and break ties by id, as the engine does.
            cut = scores[best[-1]]
            tied_or_better = numpy.flatnonzero(scores >= cut)
            ranked = tied_or_better[numpy.lexsort((tied_or_better, -scores[tied_or_better]))]
            ranked = ranked[: args.top]
            emit({"mode": "similarity", "file": path, "index": index, "query": text,
                  "ms": elapsed * 1000, "ids": ranked.tolist(), "scores": scores[ranked].tolist()})


def run_explain(args):
    smiles = read_molecules(args.molecules_file, args.molecules)
    mols = parse_all(smiles)
    for text in read_queries(args.queries[0]):
        query = Chem.MolFromSmiles(text)
        ids = [] if query is None else [
            index for index, mol in enumerate(mols)
            if mol is not None and mol.HasSubstructMatch(query, useChirality=True)]
        emit({"mode": "explain", "query": text, "ids": ids})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["build", "substructure", "similarity", "explain"])
    parser.add_argument("--molecules-file", required=True)
    parser.add_argument("--molecules", type=int, default=250000)
    parser.add_argument("--sample", type=int, default=5000, help="molecules timed in build mode")
    parser.add_argument("--queries", nargs="*", default=[])
    parser.add_argument("--top", type=int, default=50)
    args = parser.parse_args()
    {"build": run_build, "substructure": run_substructure, "similarity": run_similarity,
     "explain": run_explain}[args.mode](args)


if __name__ == "__main__":
    main()
