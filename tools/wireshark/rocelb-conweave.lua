-- rocelb's ConWeave header (mode conweave) for Wireshark and tshark.
--
-- Between switches a RoCEv2 data packet carries 16 bytes right after its
-- IPv4 header, which then says protocol 253; RTT replies, clears and
-- notifies are IPv4 protocol 253 frames of their own. The layout is
-- dataplane/wire/conweave_shim.h's:
--   byte 0      kind (high nibble) | phase (bit 0)
--   byte 1      path: the member the source ToR chose
--   bytes 2-3   epoch
--   bytes 4-7   flow: the source ToR's flow hash
--   bytes 8-11  the source ToR's send time, ns (low 32 bits)
--   bytes 12-15 the epoch's TAIL send time, ns (0: none)
-- A data packet's UDP header follows, and Wireshark's own UDP and RoCE
-- (InfiniBand) dissectors take it from there; a reply or notify ends with
-- the flow's two UDP ports, swapped.
--
-- Use: wireshark -X lua_script:tools/wireshark/rocelb-conweave.lua FILE
--      tshark -X lua_script:tools/wireshark/rocelb-conweave.lua -r FILE
-- or copy it into ~/.local/lib/wireshark/plugins/. Display filter fields:
-- rocelb_conweave.kind, .phase, .path, .epoch, .flow, .tx_ns, .tail_ns.

local cw = Proto("rocelb_conweave", "rocelb ConWeave header")

local kinds = {
  [1] = "DATA",
  [2] = "INIT (RTT request)",
  [3] = "TAIL (old path's last)",
  [4] = "RTT reply",
  [5] = "CLEAR (TAIL arrived)",
  [6] = "NOTIFY (CE on path)",
}

local f = cw.fields
f.kind = ProtoField.uint8("rocelb_conweave.kind", "Kind", base.DEC, kinds, 0xf0)
f.phase = ProtoField.uint8("rocelb_conweave.phase", "Phase", base.DEC, nil, 0x01)
f.path = ProtoField.uint8("rocelb_conweave.path", "Path (member)", base.DEC)
f.epoch = ProtoField.uint16("rocelb_conweave.epoch", "Epoch", base.DEC)
f.flow = ProtoField.uint32("rocelb_conweave.flow", "Flow hash", base.HEX)
f.tx_ns = ProtoField.uint32("rocelb_conweave.tx_ns", "Sent at (ns, low 32 bits)", base.DEC)
f.tail_ns = ProtoField.uint32("rocelb_conweave.tail_ns", "TAIL sent at (ns, low 32 bits)",
                              base.DEC)
f.sport = ProtoField.uint16("rocelb_conweave.sport", "Flow's destination port", base.DEC)
f.dport = ProtoField.uint16("rocelb_conweave.dport", "Flow's source port", base.DEC)

local udp = Dissector.get("udp")

function cw.dissector(tvb, pinfo, tree)
  if tvb:len() < 16 then return 0 end
  local kind = bit.rshift(tvb(0, 1):uint(), 4)
  local t = tree:add(cw, tvb(0, 16))
  t:add(f.kind, tvb(0, 1))
  t:add(f.phase, tvb(0, 1))
  t:add(f.path, tvb(1, 1))
  t:add(f.epoch, tvb(2, 2))
  t:add(f.flow, tvb(4, 4))
  t:add(f.tx_ns, tvb(8, 4))
  t:add(f.tail_ns, tvb(12, 4))
  local name = kinds[kind] or ("kind " .. kind)
  t:append_text(", " .. name .. ", epoch " .. tvb(2, 2):uint() .. ", path " .. tvb(1, 1):uint())
  if kind >= 1 and kind <= 3 then
    pinfo.cols.protocol = "ConWeave"
    udp:call(tvb(16):tvb(), pinfo, tree)
    pinfo.cols.info:prepend("[ConWeave " .. name .. "] ")
  else
    pinfo.cols.protocol = "ConWeave"
    pinfo.cols.info = "ConWeave " .. name .. ", epoch " .. tvb(2, 2):uint()
    if tvb:len() >= 20 then
      t:add(f.sport, tvb(16, 2))
      t:add(f.dport, tvb(18, 2))
    end
  end
  return tvb:len()
end

DissectorTable.get("ip.proto"):add(253, cw)
