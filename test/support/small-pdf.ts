/**
 * A small, valid PDF written by hand for tests: one page per text, Helvetica, a document title
 * (which Chromium's viewer shows as its frame's title), and a cross-reference table whose offsets
 * are counted as the file is written.
 */
export function smallPdf(title: string, pages: readonly string[]): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (character) => `\\${character}`)
  const pageIds = pages.map((_, index) => 4 + index * 2)
  const objects = new Map<number, string>([
    [1, '<< /Type /Catalog /Pages 2 0 R >>'],
    [
      2,
      `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    ],
    [3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'],
  ])
  pages.forEach((text, index) => {
    const pageId = pageIds[index]!
    const stream = `BT /F1 20 Tf 36 140 Td (${escape(text)}) Tj ET`
    objects.set(
      pageId,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 220] /Contents ${pageId + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    )
    objects.set(pageId + 1, `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`)
  })
  const infoId = 4 + pages.length * 2
  objects.set(infoId, `<< /Title (${escape(title)}) /Producer (Vault Desk tests) >>`)
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  for (let id = 1; id <= infoId; id++) {
    offsets.push(Buffer.byteLength(out, 'latin1'))
    out += `${id} 0 obj\n${objects.get(id)}\nendobj\n`
  }
  const xref = Buffer.byteLength(out, 'latin1')
  out += `xref\n0 ${infoId + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`
  out += `trailer\n<< /Size ${infoId + 1} /Root 1 0 R /Info ${infoId} 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, 'latin1')
}
