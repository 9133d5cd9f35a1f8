-- wrk script: the mixed load — of every 10 requests, 5 read an order by id, 2 list orders by a
-- user filter (an indexed equality, a scan with a limit), 1 lists the first page, 2 place orders.
--   wrk ... -s mixed.lua -- BASE KNOWN
-- Reads pick ids among the KNOWN orders posted by post-orders.lua with base 0 (thread 1's and
-- thread 2's first KNOWN/2 ids); new orders take ids BASE + t * 10^8 + n.
local threads = {}

function setup(thread)
    table.insert(threads, thread)
    thread:set("tid", #threads)
end

function init(args)
    base = tonumber(args[1] or "0")
    known = tonumber(args[2] or "1000")
    counter = 0
    math.randomseed(tid * 7919)
end

local function knownId()
    local thread = math.random(1, 2)
    return thread * 100000000 + math.random(1, math.floor(known / 2))
end

function request()
    counter = counter + 1
    local kind = counter % 10
    if kind < 5 then
        return wrk.format("GET", "/orders/" .. knownId())
    elseif kind == 5 then
        return wrk.format("GET", "/orders?filter=item%20%3D%3D%20'item-" .. math.random(0, 999) .. "'&limit=10")
    elseif kind == 6 then
        return wrk.format("GET", "/orders?filter=quantity%20%3E%204&limit=20")
    elseif kind == 7 then
        return wrk.format("GET", "/orders?limit=20")
    end
    local id = base + tid * 100000000 + counter
    return wrk.format("POST", "/orders", {["Content-Type"] = "application/json"},
        string.format('{"id":%d,"item":"item-%d","quantity":%d,"status":"open"}', id, id % 1000, id % 7))
end
