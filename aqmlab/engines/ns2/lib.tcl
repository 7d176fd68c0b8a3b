# aqmlab ns-2 engine: procedures shared by every generated script (tcl.py inlines this
# file). Outputs are small whitespace-separated text files in the working directory,
# parsed by parse.py:
#   flows.txt    phase flow ndatapack ndatabytes nrexmitpack nrexmit ncwndcuts1 necnresp sinkbytes
#   events.tr    E time src dst TCP <event> flow seqno cwnd: the bulk/transfer agents' event
#                trace (every retransmission TIMEOUT, RENO_FAST_RETX, ...)
#   done.txt     flow time                     (finite transfers: last byte at the sink)
#   queues.txt   phase probe parr pdep pdrops epdrops pmarks barr bdrops areapkts areabytes
#                pkts bytes bdep
#   samples.txt  time {pkts bytes ave} per probe
#   meta.txt     warm|end time
#   drops.tr     ns-2 drop traces (d: queue drops, e: RED early drops) of the probed queues
#   deque.tr     ns-2 dequeue traces of the probed queues (only with ECN: marks per flow),
#                without the TCP header fields
#   ave<p>.tr    RED's ave_ at every arrival at probe p (ns-2 variable trace)
# phase 0 = end of the warm-up, 1 = end of the run.

proc aq_open {name} {
    set fd [open $name w]
    fconfigure $fd -buffering full -buffersize 1048576
    return $fd
}

# The exact clock of every line that link a->b's traces write (ns-2 prints their times
# rounded to 1 us): one %.17g time per line, in the same order, into AQ(fd,flowclock).
proc aq_exact_clock {a b} {
    global ns
    set link [$ns link $a $b]
    foreach name {enqT_ deqT_ drpT_ rcvT_} {
        set tr [$link set $name]
        $tr set callback_ 1
        $tr proc handle {line} {
            global ns AQ
            puts $AQ(fd,flowclock) [format %.17g [$ns now]]
        }
    }
}

proc aq_init {} {
    global AQ
    foreach name {flows done queues samples meta web} {
        set AQ(fd,$name) [aq_open $name.txt]
    }
    set AQ(fd,drops) [aq_open drops.tr]
    set AQ(fd,events) [aq_open events.tr]
    set AQ(events) [new BaseTrace/Event]
    $AQ(events) attach $AQ(fd,events)
    if {$AQ(ecn)} {
        set AQ(fd,deque) [aq_open deque.tr]
    }
    set AQ(finished) 0
    set AQ(bootleft) 0
    set AQ(ndone) 0
    set AQ(flows) {}
    set AQ(probes) {}
}

# ---------------------------------------------------------------- topology

proc aq_nodes {n delayboxes} {
    global ns N
    foreach i $delayboxes {
        set db($i) 1
    }
    for {set i 0} {$i < $n} {incr i} {
        if {[info exists db($i)]} {
            set N($i) [$ns DelayBox]
        } else {
            set N($i) [$ns node]
        }
    }
}

# One direction of a link, with its queue and the queue's bound variables.
proc aq_link {a b rate delay qtype settings} {
    global ns N
    $ns simplex-link $N($a) $N($b) $rate $delay $qtype
    set q [[$ns link $N($a) $N($b)] queue]
    foreach {var value} $settings {
        $q set $var $value
    }
}

# Deterministic drops on link a->b: the link's packets numbered in `list` (from 0, every
# packet: ErrorModel/List) are dropped at the link's head, ahead of the queue, to the
# link's drop head; a probe attached later counts them as arrivals and drops, as ns-3's
# drop-list queue does (aqmlab.engines.ns2.mapping says how aqmlab's numbers map).
proc aq_drop_list {a b list} {
    global ns N
    set em [new ErrorModel/List]
    $em unit pkt
    $em droplist $list
    $ns lossmodel $em $N($a) $N($b)
}

# Manual routing on a tree: a host sends everything to its one neighbour; a router gets
# one classifier slot per neighbour and a hash entry per destination host behind it.
proc aq_route_default {node next} {
    global N
    [$N($node) get-module Manual] add-route-to-adj-node -default $N($next)
}

proc aq_route_table {node table} {
    global ns N
    set cl [[$N($node) get-module Manual] set classifier_]
    set shift [AddrParams NodeShift 1]
    foreach {next dsts} $table {
        set slot [$cl installNext [[$ns link $N($node) $N($next)] head]]
        foreach d $dsts {
            $cl set-hash auto 0 [expr {$d << $shift}] 0 $slot
        }
    }
}

# ---------------------------------------------------------------- probes

# Monitor the queue of link a->b as probe p: counters and integrals (QueueMonitor/ED),
# drop traces (forced and early), the RED average at every arrival, and with ECN the
# dequeue trace (CE marks per flow).
proc aq_probe {p a b red} {
    global ns N AQ
    set link [$ns link $N($a) $N($b)]
    set q [$link queue]
    set qm [new QueueMonitor/ED]
    $link attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qm
    set bi [new Integrator]
    $qm set-bytes-integrator $bi
    set pi [new Integrator]
    $qm set-pkts-integrator $pi
    set tr [new Trace/Drop]
    $tr set show_tcphdr_ 1
    $tr set src_ $a
    $tr set dst_ $b
    $tr attach $AQ(fd,drops)
    set dh [$link set drophead_]
    $tr target [$dh target]
    $dh target $tr
    if {$red} {
        set ed [new SnoopQueue/EDrop]
        $ed set-monitor $qm
        set etr [new Trace/EDrop]
        $etr set show_tcphdr_ 1
        $etr set src_ $a
        $etr set dst_ $b
        $etr attach $AQ(fd,drops)
        $ed target $etr
        $etr target [$ns set nullAgent_]
        $q early-drop-target $ed
        set AQ(fd,ave$p) [aq_open ave$p.tr]
        $q trace ave_
        $q attach $AQ(fd,ave$p)
    }
    if {$AQ(ecn)} {
        set dq [new Trace/Deque]
        $dq set src_ $a
        $dq set dst_ $b
        $dq attach $AQ(fd,deque)
        $dq target [$q target]
        $q target $dq
    }
    set AQ(qm,$p) $qm
    set AQ(q,$p) $q
    set AQ(red,$p) $red
    set AQ(int,$p) [list $pi $bi]
    lappend AQ(probes) $p
}

# ---------------------------------------------------------------- bulk flows, transfers

# Counts the in-order bytes a sink delivers; reports when `target_` bytes have arrived.
Class AqSinkApp -superclass Application

AqSinkApp instproc recv {n} {
    $self instvar got_ target_ flow_
    incr got_ $n
    if {$target_ > 0 && $got_ >= $target_} {
        set target_ 0
        aq_transfer_done $flow_
    }
}

# The RTO clock's tick phase of bulk flows (aqmlab.workload.tick_phase): the start-of-run
# reset of an agent with a planned seed draws its boot_time_ from the default generator
# reseeded with that seed; after the last one the generator restarts the run's stream.
Agent/TCP instproc reset {} {
    global AQ defaultRNG
    if {![info exists AQ(bootseed,$self)]} {
        return [$self cmd reset]
    }
    $defaultRNG seed $AQ(bootseed,$self)
    $self cmd reset
    unset AQ(bootseed,$self)
    if {[incr AQ(bootleft) -1] == 0} {
        aq_seed_run
    }
}

# Flow i from node src to node dst with TCP profile prof, starting at `start`; nbytes 0
# is a bulk flow, else a transfer whose last byte completes the sink's `target` bytes;
# bootseed: the seed of its tick phase (above).
proc aq_flow {i src dst prof start nbytes target overhead bootseed} {
    global ns N AQ
    set tcp [aq_agent_$prof]
    set sink [aq_sink_$prof]
    set AQ(bootseed,$tcp) $bootseed
    incr AQ(bootleft)
    $tcp set fid_ $i
    $tcp eventtrace $AQ(events)
    if {$overhead > 0} {
        $tcp set overhead_ $overhead
    }
    $ns attach-agent $N($src) $tcp
    $ns attach-agent $N($dst) $sink
    $ns connect $tcp $sink
    set AQ(tcp,$i) $tcp
    set AQ(sink,$i) $sink
    lappend AQ(flows) $i
    if {$nbytes > 0} {
        set app [new AqSinkApp]
        $app set got_ 0
        $app set target_ $target
        $app set flow_ $i
        $app attach-agent $sink
        $app start
        $ns at $start "$tcp send $nbytes"
    } else {
        $ns at $start "$tcp send -1"
    }
}

proc aq_transfer_done {i} {
    global ns AQ
    puts $AQ(fd,done) "$i [$ns now]"
    incr AQ(ndone)
    if {$AQ(stop_when_done) && $AQ(ndone) >= $AQ(nfinite)} {
        aq_finish
    }
}

# ---------------------------------------------------------------- snapshots, samples

proc aq_snapshot {phase} {
    global ns AQ
    set now [$ns now]
    set fd $AQ(fd,flows)
    foreach i $AQ(flows) {
        set t $AQ(tcp,$i)
        puts $fd "$phase $i [$t set ndatapack_] [$t set ndatabytes_] [$t set nrexmitpack_]\
                  [$t set nrexmit_] [$t set ncwndcuts1_] [$t set necnresponses_]\
                  [$AQ(sink,$i) set bytes_]"
    }
    set fd $AQ(fd,queues)
    foreach p $AQ(probes) {
        set qm $AQ(qm,$p)
        set areas {}
        foreach int $AQ(int,$p) {
            $int newpoint $now [$int set lasty_]
            lappend areas [$int set sum_]
        }
        puts $fd "$phase $p [$qm set parrivals_] [$qm set pdepartures_] [$qm set pdrops_]\
                  [$qm set epdrops_] [$qm set pmarks_] [$qm set barrivals_] [$qm set bdrops_]\
                  [join $areas] [$qm set pkts_] [$qm set size_] [$qm set bdepartures_]"
    }
    aq_web_snapshot $phase
    puts $AQ(fd,meta) "[expr {$phase ? {end} : {warm}}] $now"
}

proc aq_sample {} {
    global ns AQ
    set line [$ns now]
    foreach p $AQ(probes) {
        set qm $AQ(qm,$p)
        set ave 0
        if {$AQ(red,$p)} {
            set ave [$AQ(q,$p) set ave_]
        }
        append line " [$qm set pkts_] [$qm set size_] $ave"
    }
    puts $AQ(fd,samples) $line
    $ns after $AQ(sample) aq_sample
}

proc aq_finish {} {
    global ns AQ
    if {$AQ(finished)} {
        return
    }
    set AQ(finished) 1
    aq_snapshot 1
    foreach name [array names AQ fd,*] {
        flush $AQ($name)
    }
    $ns halt
}

# Web connections: redefined by web.tcl when a scenario has any.
proc aq_web_snapshot {phase} {}
