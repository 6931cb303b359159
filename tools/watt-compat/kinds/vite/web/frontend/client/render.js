// @ts-check
// The markup, shared by the server render (index.js, Vite's SSR build) and the browser (main.js).

/** @param {{ id: number, name: string, cents: number }[]} items */
export function render (items) {
  return `<h1>items</h1><ul>${items.map((item) => `<li data-id="${item.id}">${item.name}: ${item.cents}</li>`).join('')}</ul>`
}
