// express 5 and restify 12 ship no types and @types/* for them are not
// dependencies: type-check their servers against `any` rather than not at all.
declare module 'express'
declare module 'restify'
