// @ts-check
// One chart per dataset with every variant on it: throughput on the left and
// peak RSS on the right, one row per source (disk and the three network paths, each named on
// its row), one colour per parser, so parser cost and streaming cost read side by side.
import { parserName, PARSER_OF_MODE } from './parsers.js'

const SOURCE_LABEL = { disk: 'disk', 'net-ipc': 'ipc (mesh)', 'net-tcp': 'tcp', 'net-mesh-port': 'mesh-port (drop-in)' }
/** one colour per parser in both panels (ECharts would colour same-named series apart) */
const COLOUR = { stream: '#5470c6', scan: '#3ba272', promise: '#fac858' }

/**
 * Whether a variant was refused by design: the buffered answer cannot fit the
 * heap (or a V8 string) at this size, and the server said so with a 507.
 * @param {{ failed?: boolean, failures?: string[] }} entry
 */
export function isRefused (entry) {
  return Boolean(entry.failed) && (entry.failures ?? []).length > 0 && (entry.failures ?? []).every((f) => /answered 507/.test(f))
}

/**
 * @param {object} spec
 * @param {string} spec.dataset
 * @param {{ target: string, entry: any, mine: any[] }[]} spec.rows     this dataset's rows
 * @param {(runs: any[], pick: (run: any) => number | null | undefined) => number | null} spec.median
 * @param {string | null} [spec.streamJsonVersion]
 */
export function variantsChart ({ dataset, rows, median, streamJsonVersion }) {
  const sources = [...new Set(rows.map((row) => row.target.split('/')[1]))]
  const modes = Object.keys(PARSER_OF_MODE).filter((mode) => rows.some((row) => row.target.split('/')[2] === mode))
  const value = (/** @type {string} */ source, /** @type {string} */ mode, /** @type {(run: any) => number} */ pick) => {
    const row = rows.find((r) => r.target === `${dataset}/${source}/${mode}`)
    return row && !row.entry.failed ? median(row.mine, pick) : null
  }
  const missing = rows.filter((row) => row.entry.failed).map((row) => `${row.target} ${isRefused(row.entry) ? 'refused (507: cannot buffer at this size)' : 'FAILED'}`)
  const idle = median(rows.flatMap((row) => row.mine), (r) => r.rssIdleBytes / 1048576)
  const categories = sources.map((source) => SOURCE_LABEL[/** @type {keyof typeof SOURCE_LABEL} */ (source)] ?? source)
  const label = { show: true, position: 'right', fontSize: 9, formatter: (/** @type {any} */ p) => (p.value == null ? '' : Math.round(p.value)) }
  return {
    canvasHeight: 100 + 50 + sources.length * (14 + 12 * modes.length),
    title: {
      text: `Every ${dataset}-dataset variant: throughput and peak RSS, by source and parser`,
      subtext: [`runtime idle RSS ≈ ${idle == null ? '?' : Math.round(idle)} MiB`, ...(missing.length ? [`no bar: ${missing.join(', ')}`] : [])].join(' · '),
      left: 'center',
      textStyle: { fontSize: 14 },
      subtextStyle: { fontSize: 11 }
    },
    legend: { top: 62, data: modes.map((mode) => parserName(mode, streamJsonVersion)) },
    tooltip: {},
    grid: [0, 1].map((i) => ({ [i ? 'right' : 'left']: i ? 30 : 10, width: '45%', top: 100, bottom: 50, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' })),
    yAxis: [0, 1].map((gridIndex) => ({ type: 'category', data: categories, gridIndex, inverse: true, axisLabel: { interval: 0 } })),
    xAxis: [
      { type: 'value', name: 'dataset MB/s (req/s × size)', gridIndex: 0, nameLocation: 'middle', nameGap: 28 },
      { type: 'value', name: 'peak RSS MiB (whole runtime)', gridIndex: 1, nameLocation: 'middle', nameGap: 28 }
    ],
    series: modes.flatMap((mode) => {
      const common = { name: parserName(mode, streamJsonVersion), type: 'bar', label, itemStyle: { color: COLOUR[/** @type {keyof typeof COLOUR} */ (mode)] } }
      return [
        { ...common, xAxisIndex: 0, yAxisIndex: 0, data: sources.map((source) => value(source, mode, (r) => r.datasetMBPerSec)) },
        { ...common, xAxisIndex: 1, yAxisIndex: 1, data: sources.map((source) => value(source, mode, (r) => r.peakRssBytes / 1048576)) }
      ]
    })
  }
}
