// @ts-check
// The browser's entry: marks the server-rendered list as live (nothing to fetch again).
const app = document.getElementById('app')
if (app) app.dataset.hydrated = 'true'
