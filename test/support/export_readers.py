"""
Independent readers of the files Vault Desk exports, for the tests: Python's csv module, RDKit's
SD file reader and openpyxl, run by Debian's /usr/bin/python3 (python3-rdkit, python3-openpyxl).
Each prints what it read as JSON on stdout.

  export_readers.py csv FILE          rows as lists of strings
  export_readers.py sdf FILE          per record: title, canonical SMILES (or null), properties
  export_readers.py xlsx FILE         per sheet: title, frozen cell, rows with typed values
  export_readers.py canonical         canonical SMILES of the SMILES on stdin (JSON list in, out)
"""
import csv
import datetime
import json
import sys


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def read_sdf(path):
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    records = []
    for mol in Chem.SDMolSupplier(path, sanitize=True, removeHs=True):
        if mol is None:
            records.append(None)
            continue
        records.append(
            {
                "title": mol.GetProp("_Name") if mol.HasProp("_Name") else "",
                "atoms": mol.GetNumAtoms(),
                "smiles": Chem.MolToSmiles(mol) if mol.GetNumAtoms() > 0 else None,
                "properties": mol.GetPropsAsDict(includePrivate=False, includeComputed=False),
            }
        )
    return records


def cell(value):
    if isinstance(value, datetime.datetime):
        return {"date": value.isoformat()}
    return value


def read_xlsx(path):
    import openpyxl

    workbook = openpyxl.load_workbook(path)
    sheets = []
    for sheet in workbook.worksheets:
        sheets.append(
            {
                "title": sheet.title,
                "frozen": sheet.freeze_panes,
                "bold": [c.font.bold for c in sheet[1]] if sheet.max_row >= 1 else [],
                "rows": [[cell(value) for value in row] for row in sheet.iter_rows(values_only=True)],
            }
        )
    return sheets


def canonical():
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    answers = []
    for smiles in json.load(sys.stdin):
        mol = Chem.MolFromSmiles(smiles)
        answers.append(Chem.MolToSmiles(mol) if mol is not None else None)
    return answers


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "canonical":
        result = canonical()
    else:
        result = {"csv": read_csv, "sdf": read_sdf, "xlsx": read_xlsx}[mode](sys.argv[2])
    json.dump(result, sys.stdout, ensure_ascii=False, default=str)
