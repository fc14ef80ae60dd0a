// Just enough ELF64 little-endian parsing to read and edit symbol version requirements
// (.gnu.version_r, .gnu.version, .dynsym), used by uws-setup.mjs.
const SHT_DYNSYM = 11;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;
const VER_FLG_WEAK = 0x2;

function sections(elf) {
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) {
    throw new Error('not a 64-bit little-endian ELF file');
  }
  const shoff = Number(elf.readBigUInt64LE(0x28));
  const shentsize = elf.readUInt16LE(0x3a);
  const shnum = elf.readUInt16LE(0x3c);
  const list = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * shentsize;
    list.push({
      type: elf.readUInt32LE(at + 4),
      offset: Number(elf.readBigUInt64LE(at + 0x18)),
      size: Number(elf.readBigUInt64LE(at + 0x20)),
      link: elf.readUInt32LE(at + 0x28),
      info: elf.readUInt32LE(at + 0x2c),
      entsize: Number(elf.readBigUInt64LE(at + 0x38)),
    });
  }
  return list;
}

function cString(elf, at) {
  return elf.toString('latin1', at, elf.indexOf(0, at));
}

// Calls visit(auxOffset, versionName, versionIndex) for every Vernaux entry.
function eachVersionNeed(elf, visit) {
  const all = sections(elf);
  const verneed = all.find((s) => s.type === SHT_GNU_VERNEED);
  if (!verneed) return;
  const strtab = all[verneed.link].offset;
  let need = verneed.offset;
  for (let n = 0; n < verneed.info; n++) {
    const count = elf.readUInt16LE(need + 2);
    let aux = need + elf.readUInt32LE(need + 8);
    for (let a = 0; a < count; a++) {
      visit(aux, cString(elf, strtab + elf.readUInt32LE(aux + 8)), elf.readUInt16LE(aux + 6));
      aux += elf.readUInt32LE(aux + 12);
    }
    need += elf.readUInt32LE(need + 12);
  }
}

/** Names of the undefined dynamic symbols bound to the given version (e.g. GLIBC_2.38). */
export function findVersionedImports(elf, version) {
  const indexes = new Set();
  eachVersionNeed(elf, (_aux, name, index) => { if (name === version) indexes.add(index); });
  if (indexes.size === 0) return [];
  const all = sections(elf);
  const dynsym = all.find((s) => s.type === SHT_DYNSYM);
  const versym = all.find((s) => s.type === SHT_GNU_VERSYM);
  const strtab = all[dynsym.link].offset;
  const names = [];
  for (let i = 0; i < dynsym.size / dynsym.entsize; i++) {
    const sym = dynsym.offset + i * dynsym.entsize;
    const sectionIndex = elf.readUInt16LE(sym + 6);
    const versionIndex = elf.readUInt16LE(versym.offset + i * 2) & 0x7fff;
    if (sectionIndex === 0 && indexes.has(versionIndex)) names.push(cString(elf, strtab + elf.readUInt32LE(sym)));
  }
  return names;
}

/** A copy of the file in which the requirement on `version` is flagged weak (not fatal if absent). */
export function markVersionWeak(elf, version) {
  const copy = Buffer.from(elf);
  let found = false;
  eachVersionNeed(copy, (aux, name) => {
    if (name !== version) return;
    copy.writeUInt16LE(copy.readUInt16LE(aux + 4) | VER_FLG_WEAK, aux + 4);
    found = true;
  });
  if (!found) throw new Error(`no version requirement ${version}`);
  return copy;
}
