// @ts-check
// One report renderer for every suite: sections of text, tables and charts,
// written as Markdown and as a self-contained HTML page whose charts are SVG
// rendered server-side by ECharts (no browser, no script in the page).
import * as echarts from 'echarts'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/**
 * @typedef {{ headers: string[], rows: (string | number)[][] }} TableData
 * @typedef {{ title: string, text?: string, table?: TableData, charts?: object[] }} Section
 * @typedef {{ title: string, intro?: string, sections: Section[] }} Report
 */

/**
 * @param {TableData} table
 */
export function markdownTable ({ headers, rows }) {
  const escape = (/** @type {string | number} */ cell) => String(cell).replace(/\|/g, '\\|')
  return [
    `| ${headers.map(escape).join(' | ')} |`,
    `| ${headers.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(escape).join(' | ')} |`)
  ].join('\n')
}

/**
 * Renders an ECharts option to an SVG string, server-side.
 * @param {object} option
 * @param {{ width?: number, height?: number }} [size]
 */
export function chartSvg (option, { width = 820, height = 360 } = {}) {
  // ECharts has no option for the canvas: a chart that needs its own height carries it as canvasHeight
  const { canvasHeight, ...echartsOption } = /** @type {{ canvasHeight?: number }} */ (option)
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height: canvasHeight ?? height })
  chart.setOption({ animation: false, backgroundColor: '#ffffff', ...echartsOption })
  const svg = chart.renderToSVGString()
  chart.dispose()
  return svg
}

/**
 * A grouped bar chart, drawn horizontally: one row per category, named on its
 * left, so every bar keeps its name (ECharts drops x-axis labels that would overlap).
 * @param {{ title: string, categories: string[], series: { name: string, values: (number | null)[] }[], unit?: string, log?: boolean, stacked?: boolean }} spec
 */
export function barChart ({ title, categories, series, unit = '', log = false, stacked = false }) {
  const top = 50 + 24 * legendRows(series.map((s) => s.name))
  const bottom = 50
  const rowHeight = 14 + 12 * (stacked ? 1 : series.length)
  return {
    canvasHeight: top + bottom + Math.max(2, categories.length) * rowHeight,
    title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 34 },
    grid: { left: 10, right: 50, top, bottom, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' },
    tooltip: {},
    yAxis: { type: 'category', data: categories, inverse: true, axisLabel: { interval: 0 } },
    xAxis: { type: log ? 'log' : 'value', name: unit, nameLocation: 'middle', nameGap: 28 },
    series: series.map(({ name, values }) => ({
      name,
      type: 'bar',
      data: values,
      ...(stacked ? { stack: 'total' } : {}),
      label: { show: !stacked, position: 'right', fontSize: 10, formatter: (/** @type {any} */ p) => shortNumber(p.value) }
    }))
  }
}

/**
 * How many rows ECharts' legend takes across an 820 px chart, roughly: an item
 * is its 25 px symbol, about 6.5 px a character and a 10 px gap.
 * @param {string[]} names
 */
function legendRows (names) {
  let rows = 1
  let used = 0
  for (const name of names) {
    const width = 35 + 6.5 * name.length
    if (used + width > 780 && used > 0) { rows++; used = 0 }
    used += width
  }
  return rows
}

/**
 * A line chart over a numeric or category x axis.
 * @param {{ title: string, xName: string, categories: string[], series: { name: string, values: (number | null)[] }[], unit?: string, log?: boolean }} spec
 */
export function lineChart ({ title, xName, categories, series, unit = '', log = false }) {
  return {
    title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 34 },
    grid: { left: 70, right: 30, top: 78, bottom: 50 },
    xAxis: { type: 'category', data: categories, name: xName, nameLocation: 'middle', nameGap: 30 },
    yAxis: { type: log ? 'log' : 'value', name: unit },
    series: series.map(({ name, values }) => ({ name, type: 'line', data: values, symbolSize: 7, connectNulls: false }))
  }
}

/** @param {number} value */
function shortNumber (value) {
  if (value == null) return ''
  if (Math.abs(value) >= 1e6) return (value / 1e6).toFixed(1) + 'M'
  if (Math.abs(value) >= 1e4) return (value / 1e3).toFixed(0) + 'k'
  if (Math.abs(value) >= 100) return value.toFixed(0)
  return String(Math.round(value * 100) / 100)
}

/**
 * @param {Report} report
 */
export function renderMarkdown ({ title, intro, sections }) {
  const parts = [`# ${title}`]
  if (intro) parts.push(intro)
  for (const section of sections) {
    parts.push(`## ${section.title}`)
    if (section.text) parts.push(section.text)
    if (section.table) parts.push(markdownTable(section.table))
  }
  return parts.join('\n\n') + '\n'
}

/**
 * @param {Report} report
 */
export function renderHtml ({ title, intro, sections }) {
  const esc = (/** @type {string | number} */ s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c)
  const inline = (/** @type {string} */ text) => esc(text).replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
  const paragraphs = (/** @type {string} */ text) => text.split(/\n{2,}/).map((p) => `<p>${inline(p)}</p>`).join('\n')
  const body = sections.map((section) => {
    const table = section.table
      ? `<table><thead><tr>${section.table.headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${section.table.rows.map((row) => `<tr>${row.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`).join('')}</tbody></table>`
      : ''
    const charts = (section.charts ?? []).map((option) => `<figure>${chartSvg(option)}</figure>`).join('\n')
    return `<section><h2>${esc(section.title)}</h2>${section.text ? paragraphs(section.text) : ''}${table}${charts}</section>`
  }).join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f3f3f3}figure{margin:1em 0}code{background:#f3f3f3;padding:0 3px}
</style></head><body><h1>${esc(title)}</h1>${intro ? paragraphs(intro) : ''}
${body}
</body></html>
`
}

/**
 * Writes <base>.md and <base>.html and returns both paths.
 * @param {string} base  path without extension
 * @param {Report} report
 */
export function writeReport (base, report) {
  const md = resolve(base + '.md')
  const html = resolve(base + '.html')
  mkdirSync(dirname(md), { recursive: true })
  writeFileSync(md, renderMarkdown(report))
  writeFileSync(html, renderHtml(report))
  return { md, html }
}
