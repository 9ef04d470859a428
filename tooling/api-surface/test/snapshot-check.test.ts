// The breaking-change check on fixture packages: package-after removes `area` and turns the class
// `Square` into an interface, and its root exports the class `Triangle` as a type only, against the
// snapshot of package-before.
import { describe, expect, it } from 'vitest'
import {
  announcementTexts,
  checkSurface,
  describeChange,
  exportSurfaces,
  names,
  planSnapshotUpdate,
} from '../src/snapshot.js'

const fixtures = new URL('./fixtures/', import.meta.url)
const [before = {}, after = {}] = exportSurfaces([
  new URL('package-before/', fixtures),
  new URL('package-after/', fixtures),
])
const silent = announcementTexts(new URL('changesets-silent/', fixtures))
const named = announcementTexts(new URL('changesets-named/', fixtures))

describe('the export surface', () => {
  it('records every name of every entry with its kind', () => {
    expect(before).toEqual({
      '.': {
        Circle: 'interface',
        Shape: 'type',
        Square: 'class',
        Triangle: 'class',
        UNIT: 'const',
        area: 'function',
      },
      './shapes': {
        Circle: 'interface',
        Square: 'class',
        Triangle: 'class',
        UNIT: 'const',
        area: 'function',
      },
    })
  })
})

describe('checkSurface', () => {
  it('passes an unchanged surface', () => {
    expect(checkSurface(before, before, [])).toEqual({ unrecorded: [], unannounced: [], announced: [] })
  })

  it('refuses a removed export and a changed kind that no changeset names', () => {
    const check = checkSurface(before, after, silent)
    expect(check.unannounced.map((change) => describeChange('@fixture/surface', change))).toEqual([
      '@fixture/surface: area (function) was removed',
      '@fixture/surface/shapes: area (function) was removed',
      '@fixture/surface: Square changed from class to interface',
      '@fixture/surface: Triangle changed from class to type-only class',
      '@fixture/surface/shapes: Square changed from class to interface',
    ])
    expect(check.announced).toEqual([])
  })

  it('passes them once a changeset names them', () => {
    const check = checkSurface(before, after, named)
    expect(check.unannounced).toEqual([])
    expect(check.announced.map((change) => change.name).sort()).toEqual([
      'Square',
      'Square',
      'Triangle',
      'area',
      'area',
    ])
  })

  it('reports an added export as missing from the snapshot, whatever the changesets say', () => {
    const check = checkSurface(before, after, named)
    expect(check.unrecorded).toEqual([
      { subpath: '.', name: 'perimeter', after: 'function' },
      { subpath: './shapes', name: 'perimeter', after: 'function' },
    ])
  })

  it('counts only whole names: `areaOf` or `Squares` do not name `area` or `Square`', () => {
    expect(names(silent.join('\n'), 'area')).toBe(false)
    expect(names(silent.join('\n'), 'Square')).toBe(false)
    expect(names(silent.join('\n'), 'Triangle')).toBe(false)
    expect(names('`area` is gone', 'area')).toBe(true)
    expect(names('see $area', 'area')).toBe(false)
  })
})

describe('planSnapshotUpdate', () => {
  it('refuses to rewrite the snapshot over an unannounced breaking change', () => {
    expect(planSnapshotUpdate('@fixture/surface', before, after, silent)).toEqual({
      refused: expect.arrayContaining(['@fixture/surface: area (function) was removed']),
    })
  })

  it('rewrites it when the changes are announced, and leaves a current snapshot alone', () => {
    expect(planSnapshotUpdate('@fixture/surface', before, after, named)).toEqual({ refused: [], next: after })
    expect(planSnapshotUpdate('@fixture/surface', after, after, [])).toEqual({ refused: [] })
  })
})
