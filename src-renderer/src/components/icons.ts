/**
 * The app's icons as SVG path data on a 24-pixel grid, drawn as 1.75-pixel strokes. Drawn for
 * Vault Desk, to match its subjects (structures, vials, plates), not taken from a set.
 */
const circle = (cx: number, cy: number, r: number) =>
  `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`

const roundedRect = (x: number, y: number, width: number, height: number, r: number) =>
  `M${x + r} ${y}h${width - 2 * r}a${r} ${r} 0 0 1 ${r} ${r}v${height - 2 * r}a${r} ${r} 0 0 1 ${-r} ${r}` +
  `h${-(width - 2 * r)}a${r} ${r} 0 0 1 ${-r} ${-r}v${-(height - 2 * r)}a${r} ${r} 0 0 1 ${r} ${-r}z`

const wellGrid = [7, 12, 17].flatMap((x) => [10, 14].map((y) => circle(x, y, 0.9)))

export const icons = {
  molecule: ['M12 3.2l7.6 4.4v8.8L12 20.8l-7.6-4.4V7.6z', circle(12, 12, 3.4)],
  vial: ['M8.5 3h7', 'M10 3v14.5a2 2 0 0 0 4 0V3', 'M10 11h4'],
  flask: ['M9 3h6', 'M10 3v5.5L4.8 18a2 2 0 0 0 1.8 3h10.8a2 2 0 0 0 1.8-3L14 8.5V3', 'M7 15h10'],
  plate: [roundedRect(3, 6, 18, 12, 2), ...wellGrid],
  box: ['M3.5 7.5L12 3.5l8.5 4v9L12 20.5l-8.5-4z', 'M3.5 7.5L12 11.5l8.5-4', 'M12 11.5v9'],
  notebook: [roundedRect(5, 3, 14, 18, 2), 'M8.5 3v18', 'M11.5 8h4.5', 'M11.5 12h4.5'],
  outbox: [
    'M4 13.5V18a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-4.5',
    'M4 13.5h4l1.5 2h5l1.5-2h4',
    'M12 3.5v8.5',
    'M8.5 7L12 3.5 15.5 7',
  ],
  server: [
    roundedRect(3.5, 4, 17, 7, 1.5),
    roundedRect(3.5, 13, 17, 7, 1.5),
    'M7 7.5h.01',
    'M7 16.5h.01',
  ],
  plus: ['M12 5v14', 'M5 12h14'],
  menu: ['M4 7h16', 'M4 12h16', 'M4 17h16'],
  close: ['M6.5 6.5l11 11', 'M17.5 6.5l-11 11'],
  sync: [
    'M19.5 12a7.5 7.5 0 0 1-13.3 4.8',
    'M4.5 12a7.5 7.5 0 0 1 13.3-4.8',
    'M18.5 3.5v4h-4',
    'M5.5 20.5v-4h4',
  ],
  check: ['M5 12.5l4.5 4.5L19 7.5'],
  info: [circle(12, 12, 8.5), 'M12 11v5', 'M12 7.8v.01'],
  alert: [circle(12, 12, 8.5), 'M12 7.5v5.5', 'M12 16.2v.01'],
  sortAscending: ['M7.5 14l4.5-4.5 4.5 4.5'],
  sortDescending: ['M7.5 10l4.5 4.5 4.5-4.5'],
  sortable: ['M8.5 9.5L12 6l3.5 3.5', 'M8.5 14.5L12 18l3.5-3.5'],
  plug: ['M9 3v4', 'M15 3v4', 'M7 7h10v3.5a5 5 0 0 1-10 0z', 'M12 15.5V21'],
  sparkle: [
    'M12 3.5l1.9 5.1 5.1 1.9-5.1 1.9-1.9 5.1-1.9-5.1L5 10.5l5.1-1.9z',
    'M18.5 16v4',
    'M16.5 18h4',
  ],
  offline: [
    'M4 4l16 16',
    'M8.5 8.7A6 6 0 0 0 6 18h10',
    'M11 6.2A6 6 0 0 1 17.9 11 3.5 3.5 0 0 1 20 17',
  ],
  search: [circle(10.5, 10.5, 6), 'M15 15l5 5'],
  file: [
    'M6 3.5h8l4.5 4.5V19a1.5 1.5 0 0 1-1.5 1.5H6A1.5 1.5 0 0 1 4.5 19V5A1.5 1.5 0 0 1 6 3.5z',
    'M13.5 3.5V8.5h5',
  ],
  chevronRight: ['M10 7l5 5-5 5'],
  chevronDown: ['M7 10l5 5 5-5'],
  arrowLeft: ['M19 12H5', 'M11 6l-6 6 6 6'],
  more: [circle(6, 12, 0.6), circle(12, 12, 0.6), circle(18, 12, 0.6)],
  trash: ['M4.5 7h15', 'M9.5 7V4.5h5V7', 'M6.5 7l1 12.5h9l1-12.5', 'M10.5 11v5', 'M13.5 11v5'],
  key: [circle(8, 15, 3.5), 'M10.5 12.5L19 4', 'M16 7l2.5 2.5', 'M13.5 9.5l2 2'],
  warning: ['M12 4L21 19.5H3z', 'M12 10v4.5', 'M12 17v.01'],
  stop: [roundedRect(6.5, 6.5, 11, 11, 1.5)],
  external: [
    'M14 4.5h5.5V10',
    'M19.5 4.5L11 13',
    'M17.5 14v4a1.5 1.5 0 0 1-1.5 1.5H6A1.5 1.5 0 0 1 4.5 18V8A1.5 1.5 0 0 1 6 6.5h4',
  ],
  eye: [
    'M2.5 12s3.5-6.5 9.5-6.5 9.5 6.5 9.5 6.5-3.5 6.5-9.5 6.5S2.5 12 2.5 12z',
    circle(12, 12, 2.8),
  ],
  eyeOff: [
    'M4 4l16 16',
    'M10 5.7A9.9 9.9 0 0 1 12 5.5c6 0 9.5 6.5 9.5 6.5a16 16 0 0 1-2.7 3.4',
    'M6.6 6.9C4 8.6 2.5 12 2.5 12s3.5 6.5 9.5 6.5a9.6 9.6 0 0 0 4.2-.9',
    'M10 10.1a2.8 2.8 0 0 0 3.9 3.9',
  ],
  note: ['M5 4.5h14v10l-5 5H5z', 'M14 19.5v-5h5'],
  flag: ['M5.5 20.5V4', 'M5.5 4.5h11l-2.5 4 2.5 4h-11'],
  pencil: ['M4.5 19.5l1-4.5L15.5 5a2.1 2.1 0 0 1 3 3l-10 10z', 'M13.5 7l3 3'],
  link: [
    'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1',
    'M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  ],
  upload: ['M12 15.5V4', 'M7.5 8.5L12 4l4.5 4.5', 'M4.5 15v3a2 2 0 0 0 2 2h11a2 2 0 0 0 2-2v-3'],
  clock: [circle(12, 12, 8.5), 'M12 7.5V12l3 2'],
} satisfies Record<string, string[]>

export type IconName = keyof typeof icons
