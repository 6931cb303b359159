// @ts-check
// The SSR entry Vite builds for the server (client/dist/server/index.js).
export { render } from './render.js'
