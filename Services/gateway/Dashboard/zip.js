// A ZIP archive of text files, stored without compression. Written here because the page loads no outside code
// and browsers offer no ZIP writer (CompressionStream makes gzip and deflate streams, not archives). Any unzip reads
// it; names are UTF-8 (flag bit 11); no ZIP64, so the whole archive stays under 4 GiB.
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// `files`: [{ name, text }]. Returns a Blob of type application/zip.
export function zipArchive(files, now = new Date()) {
  const encoder = new TextEncoder();
  const time = (now.getHours() << 11) | (now.getMinutes() << 5) | (now.getSeconds() >> 1);
  const date = ((now.getFullYear() - 1980) << 9) | ((now.getMonth() + 1) << 5) | now.getDate();
  const parts = [];
  const central = [];
  let offset = 0;
  for (const file of files) {
    const name = encoder.encode(file.name);
    const data = encoder.encode(file.text);
    const crc = crc32(data);
    const local = header(30 + name.length, (view) => {
      view.setUint32(0, 0x04034b50, true);
      common(view, 4, crc, data.length, name.length);
    });
    local.set(name, 30);
    parts.push(local, data);
    const entry = header(46 + name.length, (view) => {
      view.setUint32(0, 0x02014b50, true);
      view.setUint16(4, 20, true);
      common(view, 6, crc, data.length, name.length);
      view.setUint32(42, offset, true);
    });
    entry.set(name, 46);
    central.push(entry);
    offset += local.length + data.length;
    if (offset > 0xffffffff) throw new Error('The export is larger than a ZIP archive without ZIP64 holds (4 GiB).');
  }
  const size = central.reduce((sum, entry) => sum + entry.length, 0);
  const end = header(22, (view) => {
    view.setUint32(0, 0x06054b50, true);
    view.setUint16(8, files.length, true);
    view.setUint16(10, files.length, true);
    view.setUint32(12, size, true);
    view.setUint32(16, offset, true);
  });
  return new Blob([...parts, ...central, end], { type: 'application/zip' });

  // The fields local and central headers share, from "version needed" on.
  function common(view, at, crc, length, nameLength) {
    view.setUint16(at, 20, true);
    view.setUint16(at + 2, 0x0800, true);
    view.setUint16(at + 4, 0, true);
    view.setUint16(at + 6, time, true);
    view.setUint16(at + 8, date, true);
    view.setUint32(at + 10, crc, true);
    view.setUint32(at + 14, length, true);
    view.setUint32(at + 18, length, true);
    view.setUint16(at + 22, nameLength, true);
  }
}

function header(length, fill) {
  const bytes = new Uint8Array(length);
  fill(new DataView(bytes.buffer));
  return bytes;
}
