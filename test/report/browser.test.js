// The HTML reports as a browser draws them: the committed results are rendered
// with the suites' own report writers, opened in headless Chromium at 1300 px,
// and every bar of every chart must have its category's name drawn beside it,
// whole and clear of its neighbours, under a title that names the question.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { writeReport } from '../../bench/lib/report.js'
import { dataReport } from '../../bench/data/report.js'
import { profileReport } from '../../bench/profile/report.js'
import { mainReport } from '../../bench/transports/published-apps.js'

const root = new URL('../../', import.meta.url)
// CHROMIUM_PATH, when set, is the only browser tried
const CHROMIUM = (process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser']).find((path) => existsSync(path))
const skip = !CHROMIUM && 'no Chromium found (set CHROMIUM_PATH, or on Debian: apt-get install chromium; .ci/run installs it when root)'

/** Each committed result with charts, and the report writer its suite uses (npm run bench's ends with the published apps, a chart per app). */
const REPORTS = [
  { name: 'transports', result: 'transports.json', report: mainReport },
  { name: 'data', result: 'data.json', report: dataReport },
  { name: 'profile', result: 'profile.json', report: profileReport }
]

/**
 * Each chart's category names and how many category axes show them, in page order.
 * @param {import('../../bench/lib/report.js').Report} report
 */
function expectedCharts (report) {
  return report.sections.flatMap((section) => (section.charts ?? []).map((/** @type {any} */ option) => {
    const axes = [option.xAxis, option.yAxis].flat().filter((axis) => axis?.type === 'category')
    return { title: String(option.title?.text ?? ''), categories: /** @type {string[]} */ (axes[0]?.data ?? []), axes: axes.length }
  }))
}

t.test('every bar of every report chart is named in Chromium at 1300 px', { skip }, async (t) => {
  const { chromium } = await import('playwright-core')
  const dir = mkdtempSync(join(tmpdir(), 'report-browser-'))
  const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 120_000 })
  t.teardown(async () => {
    await browser.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } })

  for (const { name, result, report } of REPORTS) {
    const written = report(JSON.parse(readFileSync(new URL(`results/published/${result}`, root), 'utf8')))
    const { html } = writeReport(join(dir, name), written)
    await page.goto(pathToFileURL(html).href)
    const charts = expectedCharts(written)
    t.ok(charts.length > 0, `${name}: the report has charts`)

    const title = await page.title()
    t.equal(title, written.title, `${name}: the page title`)
    t.notMatch(title, / vs .* vs /, `${name}: the title names the question, not a list`)

    // every <text> of each chart's SVG, with its box as drawn on the page
    const figures = await page.$$eval('figure svg', (svgs) => svgs.map((svg) => {
      const frame = svg.getBoundingClientRect()
      return {
        frame: { left: frame.left, right: frame.right, top: frame.top, bottom: frame.bottom },
        texts: [...svg.querySelectorAll('text')].map((node) => {
          const box = node.getBoundingClientRect()
          const style = /** @type {any} */ (node.ownerDocument.defaultView).getComputedStyle(node)
          return { text: node.textContent ?? '', left: box.left, right: box.right, top: box.top, bottom: box.bottom, shown: style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) > 0 }
        })
      }
    }))
    t.equal(figures.length, charts.length, `${name}: one drawn chart per chart`)

    charts.forEach(({ title: chartTitle, categories, axes }, i) => {
      const { frame, texts } = figures[i]
      t.ok(frame.right <= 1300, `${name} "${chartTitle}": within the 1300 px window`)
      const labels = []
      for (const category of categories) {
        const drawn = texts.filter((text) => text.text === category && text.shown && text.right > text.left && text.bottom > text.top &&
          text.left >= frame.left && text.right <= frame.right && text.top >= frame.top && text.bottom <= frame.bottom)
        t.ok(drawn.length >= axes, `${name} "${chartTitle}": "${category}" drawn whole on each of its ${axes} axis(es) (${drawn.length})`)
        labels.push(...drawn)
      }
      const overlaps = labels.flatMap((a, j) => labels.slice(j + 1).filter((b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom).map((b) => `${a.text} / ${b.text}`))
      t.same(overlaps, [], `${name} "${chartTitle}": no two names overlap`)
    })

    if (process.env.REPORT_SCREENSHOTS) await page.screenshot({ path: join(process.env.REPORT_SCREENSHOTS, `${name}.png`), fullPage: true })
  }
})
