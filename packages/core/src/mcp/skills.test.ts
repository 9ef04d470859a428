import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadSkillCatalog } from './skills.js'

let base: string

async function put(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(join(base, path)), { recursive: true })
  await writeFile(join(base, path), content)
}

const skillMd = (name: string, description = 'How we branch and merge') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'portcullis-skills-'))
  await put('skills/git-workflow/SKILL.md', skillMd('git-workflow'))
  await put('skills/git-workflow/references/GUIDE.md', '# Guide\n')
  await put('skills/git-workflow/assets/logo.png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff]))
  await put('skills/git-workflow/.hidden', 'not published')
  await put('skills/no-skill-file/README.md', 'skipped folder')
  await put('outside/secret.txt', 'TOP-SECRET')
})

afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

const decode = (body: Uint8Array | undefined) =>
  body === undefined ? undefined : Buffer.from(body).toString('utf8')

describe('loadSkillCatalog', () => {
  it('publishes every file as skill://<name>/<path>, SKILL.md first with front matter name and description', async () => {
    const catalog = await loadSkillCatalog(join(base, 'skills'))
    expect(catalog.files.map((file) => file.uri)).toEqual([
      'skill://git-workflow/SKILL.md',
      'skill://git-workflow/assets/logo.png',
      'skill://git-workflow/references/GUIDE.md',
    ])
    expect(catalog.files[0]).toMatchObject({
      name: 'git-workflow',
      description: 'How we branch and merge',
      mimeType: 'text/markdown',
      path: 'SKILL.md',
    })
    expect(catalog.files[1]).toMatchObject({
      name: 'git-workflow/assets/logo.png',
      mimeType: 'image/png',
      size: 5,
    })
    expect(catalog.refused).toEqual([])
  })

  it('reads the current bytes of listed files and nothing else', async () => {
    const catalog = await loadSkillCatalog(join(base, 'skills'))
    const skill = await catalog.read('skill://git-workflow/SKILL.md')
    expect(decode(skill?.body)).toBe(skillMd('git-workflow'))
    expect(skill?.mimeType).toBe('text/markdown')
    await put('skills/git-workflow/references/GUIDE.md', '# Guide v2\n')
    expect(decode((await catalog.read('skill://git-workflow/references/GUIDE.md'))?.body)).toBe(
      '# Guide v2\n',
    )
    for (const uri of [
      'skill://git-workflow/../no-skill-file/README.md',
      'skill://git-workflow/references/../SKILL.md',
      'skill://git-workflow/references%2FGUIDE.md',
      'skill://git-workflow/%2e%2e/%2e%2e/outside/secret.txt',
      'skill://git-workflow/missing.md',
      'skill://git-workflow/.hidden',
      'skill://nope/SKILL.md',
      'skill://no-skill-file/README.md',
      'skill://git-workflow//SKILL.md',
    ]) {
      expect(await catalog.read(uri)).toBeUndefined()
    }
  })

  it('refuses symlinks escaping the skill folder but keeps ones inside it', async () => {
    await symlink(join(base, 'outside/secret.txt'), join(base, 'skills/git-workflow/leak.txt'))
    await symlink(
      join(base, 'skills/git-workflow/references/GUIDE.md'),
      join(base, 'skills/git-workflow/alias.md'),
    )
    await symlink(join(base, 'outside'), join(base, 'skills/git-workflow/dir-link'))
    await symlink(join(base, 'skills/git-workflow/references'), join(base, 'skills/git-workflow/refs-link'))
    const catalog = await loadSkillCatalog(join(base, 'skills'))
    expect(catalog.refused).toEqual(
      expect.arrayContaining([
        { skill: 'git-workflow', path: 'leak.txt', reason: 'symlink-escape' },
        { skill: 'git-workflow', path: 'dir-link', reason: 'symlink-escape' },
        { skill: 'git-workflow', path: 'refs-link', reason: 'symlink-directory' },
      ]),
    )
    expect(await catalog.read('skill://git-workflow/leak.txt')).toBeUndefined()
    expect(decode((await catalog.read('skill://git-workflow/alias.md'))?.body)).toBe('# Guide\n')
  })

  it('stops serving a listed file that is swapped for an escaping symlink after load', async () => {
    const catalog = await loadSkillCatalog(join(base, 'skills'))
    await rm(join(base, 'skills/git-workflow/references/GUIDE.md'))
    await symlink(join(base, 'outside/secret.txt'), join(base, 'skills/git-workflow/references/GUIDE.md'))
    expect(await catalog.read('skill://git-workflow/references/GUIDE.md')).toBeUndefined()
  })

  it('refuses oversized files at load and when they grow later', async () => {
    await put('skills/git-workflow/big.bin', new Uint8Array(2048))
    const catalog = await loadSkillCatalog(join(base, 'skills'), { maxFileBytes: 1024 })
    expect(catalog.refused).toContainEqual({ skill: 'git-workflow', path: 'big.bin', reason: 'too-large' })
    expect(await catalog.read('skill://git-workflow/big.bin')).toBeUndefined()
    await put('skills/git-workflow/references/GUIDE.md', 'x'.repeat(4096))
    expect(await catalog.read('skill://git-workflow/references/GUIDE.md')).toBeUndefined()
  })

  it('refuses a symlinked skill folder', async () => {
    await put('elsewhere/linked/SKILL.md', skillMd('linked'))
    await symlink(join(base, 'elsewhere/linked'), join(base, 'skills/linked'))
    const catalog = await loadSkillCatalog(join(base, 'skills'))
    expect(catalog.files.some((file) => file.skill === 'linked')).toBe(false)
    expect(catalog.refused).toContainEqual({ skill: 'linked', path: '', reason: 'symlink-directory' })
  })

  it('percent-encodes file names in URIs and resolves only that form', async () => {
    await put('skills/git-workflow/notes/a b.md', 'spaced')
    const catalog = await loadSkillCatalog(join(base, 'skills'))
    expect(catalog.files.map((file) => file.uri)).toContain('skill://git-workflow/notes/a%20b.md')
    expect(decode((await catalog.read('skill://git-workflow/notes/a%20b.md'))?.body)).toBe('spaced')
    expect(await catalog.read('skill://git-workflow/notes/a b.md')).toBeUndefined()
  })

  it.each([
    ['no front matter', '# just markdown', 'no front matter'],
    ['a name that differs from the folder', skillMd('other-name'), 'must equal the folder name'],
    ['no description', '---\nname: git-workflow\n---\n', 'needs a description'],
  ])('fails at startup for a SKILL.md with %s', async (_label, content, message) => {
    await put('skills/git-workflow/SKILL.md', content)
    await expect(loadSkillCatalog(join(base, 'skills'))).rejects.toMatchObject({
      code: 'mcp.skill_invalid',
      message: expect.stringContaining(message),
    })
  })

  it('fails at startup for too many files, too deep a tree or a missing directory', async () => {
    await expect(loadSkillCatalog(join(base, 'skills'), { maxFilesPerSkill: 2 })).rejects.toMatchObject({
      code: 'mcp.skill_invalid',
    })
    await put('skills/git-workflow/a/b/c/d.md', 'deep')
    await expect(loadSkillCatalog(join(base, 'skills'), { maxDepth: 2 })).rejects.toMatchObject({
      code: 'mcp.skill_invalid',
    })
    await expect(loadSkillCatalog(join(base, 'missing'))).rejects.toMatchObject({ code: 'mcp.skill_invalid' })
    await expect(loadSkillCatalog(join(base, 'skills'), { maxFileBytes: 0 })).rejects.toMatchObject({
      code: 'mcp.skill_invalid',
    })
  })
})
