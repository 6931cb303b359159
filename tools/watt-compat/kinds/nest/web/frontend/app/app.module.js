// @ts-check
// A NestJS app (Express adapter) in plain JavaScript: the decorators applied by hand
// (Reflect.decorate), so the kind needs no TypeScript build. Its routes call the api app
// with fetch over http://api.plt.local, which the runtime's dispatcher (mesh or drop-in)
// carries; /hello calls nothing (the api calls it back: the kind as a callee).
import 'reflect-metadata'
import { Controller, Get, Module, Param } from '@nestjs/common'

/** @param {string} path */
async function fromApi (path) {
  const answer = await fetch(`http://api.plt.local${path}`, { cache: 'no-store' })
  return { status: answer.status, body: await answer.json() }
}

export class ItemsController {
  async items () {
    return { from: 'nest', ...(await fromApi('/items')) }
  }

  /** @param {string} id */
  async item (id) {
    return { from: 'nest', ...(await fromApi(`/items/${id}`)) }
  }

  hello () {
    return { hello: 'nest' }
  }

  async viaApi () {
    return { from: 'nest', ...(await fromApi('/via-frontend')) }
  }
}

/**
 * @param {any[]} decorators
 * @param {string} name
 */
function decorate (decorators, name) {
  const proto = ItemsController.prototype
  Reflect.decorate(decorators, proto, name, Object.getOwnPropertyDescriptor(proto, name))
}
decorate([Get('items')], 'items')
decorate([Get('items/:id')], 'item')
Param('id')(ItemsController.prototype, 'item', 0) // a parameter decorator: called as TypeScript would
decorate([Get('hello')], 'hello')
decorate([Get('via-api')], 'viaApi')
Reflect.decorate([Controller()], ItemsController)

export class AppModule {}
Reflect.decorate([Module({ controllers: [ItemsController] })], AppModule)
